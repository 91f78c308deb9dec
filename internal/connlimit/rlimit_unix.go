//go:build unix

package connlimit

import "syscall"

// NoFileLimit returns the soft RLIMIT_NOFILE; false when it cannot be
// read or is infinite.
func NoFileLimit() (uint64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, false
	}
	cur := uint64(l.Cur) //nolint:unconvert // int64 on some BSDs
	return cur, cur < 1<<62
}
