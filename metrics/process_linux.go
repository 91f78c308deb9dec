package metrics

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// userHZ is the kernel's USER_HZ, the unit of /proc/<pid>/stat times; it
// is 100 on every Linux architecture Go supports.
const userHZ = 100

// collectProcess adds client_golang's process_* families from /proc/self.
// A field it cannot read is left out.
func collectProcess(w *Writer) {
	if st, ok := readProcStat(); ok {
		w.Counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", st.cpuSeconds)
		w.Gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", st.vsize)
		w.Gauge("process_resident_memory_bytes", "Resident memory size in bytes.", st.rss)
		if boot, ok := bootTime(); ok {
			w.Gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
				boot+st.startTicks/userHZ)
		}
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		w.Gauge("process_open_fds", "Number of open file descriptors.", float64(len(fds)))
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		w.Gauge("process_max_fds", "Maximum number of open file descriptors.", float64(lim.Cur))
	}
}

type procStat struct {
	cpuSeconds, vsize, rss, startTicks float64
}

// readProcStat parses /proc/self/stat (proc(5)); fields are counted after
// the ")" closing the command name, which may itself contain spaces.
func readProcStat() (procStat, bool) {
	data, err := os.ReadFile("/proc/self/stat")
	i := bytes.LastIndexByte(data, ')')
	if err != nil || i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(data[i+1:])) // f[0] is field 3 (state)
	if len(f) < 22 {
		return procStat{}, false
	}
	num := func(field int) float64 { v, _ := strconv.ParseFloat(f[field-3], 64); return v }
	return procStat{
		cpuSeconds: (num(14) + num(15)) / userHZ,
		startTicks: num(22),
		vsize:      num(23),
		rss:        num(24) * float64(os.Getpagesize()),
	}, true
}

// bootTime reads btime from /proc/stat.
func bootTime() (float64, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "btime "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}
