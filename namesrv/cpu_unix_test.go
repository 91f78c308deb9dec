//go:build unix

package namesrv

import (
	"syscall"
	"time"
)

// processCPU is this process's user+system CPU time so far (0 when
// unreadable): benchmarks report CPU per operation with it, which other
// processes on a shared machine disturb far less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
