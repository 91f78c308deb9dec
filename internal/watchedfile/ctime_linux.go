//go:build linux

package watchedfile

import (
	"os"
	"syscall"
)

// changeTime is fi's status change time (ctime) in nanoseconds: chmod and
// chown move it, and neither moves the modification time.
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
