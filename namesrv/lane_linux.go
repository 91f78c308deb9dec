package namesrv

import "syscall"

// lowerThreadPriority sets the niceness of the calling thread (Linux keeps
// one per thread); failure only costs the priority, never the work.
func lowerThreadPriority(nice int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}
