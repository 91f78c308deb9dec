//go:build !linux

package namesrv

// lowerThreadPriority is a no-op where threads have no niceness of their own.
func lowerThreadPriority(int) {}
