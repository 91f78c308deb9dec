//go:build !unix

package connlimit

// NoFileLimit returns false: the platform has no RLIMIT_NOFILE.
func NoFileLimit() (uint64, bool) { return 0, false }
