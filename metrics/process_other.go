//go:build !linux

package metrics

// collectProcess adds nothing off Linux: the process_* families come from
// /proc.
func collectProcess(*Writer) {}
