package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/remoting"
)

// serveLimit runs the transport-limit server: a remoting.Server with the
// NameServer's framing that answers GET_ROUTEINFO_BY_TOPIC with one canned
// body (read from -limit-body) and looks nothing up. It runs until SIGTERM.
func serveLimit(o options, _ io.Writer, log hclog.Logger) error {
	canned, err := os.ReadFile(o.limitBody)
	if err != nil {
		return err
	}
	if o.listen == "" {
		return errors.New("-serve-limit needs -listen")
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := remoting.NewServer(remoting.ServerConfig{Logger: log.Named("limit")})
	srv.Register(remoting.GetRouteinfoByTopic, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		resp := remoting.NewResponse(req, remoting.Success, "")
		resp.Body = canned
		return resp, nil
	})
	// Registrations (the scale workload's re-registrations) are answered
	// without reading their body.
	srv.Register(remoting.RegisterBroker, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		return remoting.NewResponse(req, remoting.Success, ""), nil
	})
	return withProfile(o.cpuProfile, func() error {
		go func() { _ = srv.Serve(ln) }()
		waitTerm()
		return srv.Close()
	})
}

// serveNamesrv runs a NameServer in-process with config -c, so that
// -cpuprofile can profile it under load. It runs until SIGTERM.
func serveNamesrv(o options, _ io.Writer, log hclog.Logger) error {
	cfg, err := config.Load(o.configFile)
	if err != nil {
		return err
	}
	tlsm, err := serveTLS(cfg, log)
	if err != nil {
		return err
	}
	defer tlsm.Close()
	srv, err := namesrv.New(cfg, log.Named("namesrv"), namesrv.WithTLS(tlsm))
	if err != nil {
		return err
	}
	return withProfile(o.cpuProfile, func() error {
		if err := srv.Start(); err != nil {
			return err
		}
		stopGC := gcOnSignal(o.cpuProfile, log)
		defer stopGC()
		stopSched := schedOnSignal(log)
		defer stopSched()
		waitTerm()
		// alloc_space of this profile covers the whole run
		writeHeapProfile(strings.TrimSuffix(o.cpuProfile, ".cpu.pprof")+".heap-final.pprof", log)
		ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
		defer cancel()
		return srv.Shutdown(ctx)
	})
}

// gcOnSignal makes each SIGUSR1 run a full GC, return free memory to the
// OS and write a heap profile next to cpuProfile (as <base>.heap-N.pprof),
// so the parent can read a settled RSS. It returns a stop function.
func gcOnSignal(cpuProfile string, log hclog.Logger) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	quit := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			select {
			case <-ch:
			case <-quit:
				return
			}
			debug.FreeOSMemory() // runs a GC first
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			log.Info("forced GC", "heap_alloc", ms.HeapAlloc, "heap_inuse", ms.HeapInuse, "sys", ms.Sys)
			writeHeapProfile(strings.TrimSuffix(cpuProfile, ".cpu.pprof")+fmt.Sprintf(".heap-%d.pprof", n), log)
		}
	}()
	return func() { signal.Stop(ch); close(quit) }
}

// schedOnSignal makes each SIGUSR2 log the quantiles of the scheduler
// latency (time goroutines spent runnable before running, from
// runtime/metrics) since the previous SIGUSR2.
func schedOnSignal(log hclog.Logger) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR2)
	quit := make(chan struct{})
	go func() {
		prev := schedHist()
		for n := 0; ; n++ {
			select {
			case <-ch:
			case <-quit:
				return
			}
			cur := schedHist()
			q := histQuantiles(prev, cur, 0.5, 0.99, 0.999)
			log.Info("sched latency", "interval", n, "p50_us", q[0], "p99_us", q[1], "p999_us", q[2])
			prev = cur
		}
	}()
	return func() { signal.Stop(ch); close(quit) }
}

// schedHist reads /sched/latencies:seconds.
func schedHist() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return &metrics.Float64Histogram{}
	}
	return s[0].Value.Float64Histogram()
}

// histQuantiles returns quantiles (µs, bucket upper bounds) of cur − prev.
func histQuantiles(prev, cur *metrics.Float64Histogram, qs ...float64) []float64 {
	counts := make([]uint64, len(cur.Counts))
	var total uint64
	for i := range counts {
		counts[i] = cur.Counts[i]
		if i < len(prev.Counts) {
			counts[i] -= prev.Counts[i]
		}
		total += counts[i]
	}
	out := make([]float64, len(qs))
	for j, q := range qs {
		var acc uint64
		for i, c := range counts {
			acc += c
			if total > 0 && float64(acc) >= q*float64(total) {
				out[j] = cur.Buckets[i+1] * 1e6
				break
			}
		}
	}
	return out
}

// writeHeapProfile writes the heap profile to path, logging failures.
func writeHeapProfile(path string, log hclog.Logger) {
	f, err := os.Create(path)
	if err == nil {
		err = errors.Join(pprof.WriteHeapProfile(f), f.Close())
	}
	if err != nil {
		log.Warn("heap profile", "error", err)
	}
}

// withProfile runs fn, under a CPU profile written to path unless path is
// empty.
func withProfile(path string, fn func() error) error {
	if path == "" {
		return fn()
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return err
	}
	err = fn()
	pprof.StopCPUProfile()
	return errors.Join(err, f.Close())
}

// maxServeTime bounds a serve mode whose parent never stops it (Pdeathsig
// normally kills it first).
const maxServeTime = time.Hour

// waitTerm blocks until SIGTERM or SIGINT, at most maxServeTime.
func waitTerm() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(ch)
	select {
	case <-ch:
	case <-time.After(maxServeTime):
	}
}

// memStatus is what /proc/<pid>/status says about a process's memory.
type memStatus struct {
	HWMKB int64 // VmHWM: peak resident set
	RSSKB int64 // VmRSS: current resident set
}

// readMem reads VmHWM and VmRSS of pid.
func readMem(pid int) (memStatus, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memStatus{}, err
	}
	var m memStatus
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if n, _ := fmt.Sscanf(line, "VmHWM: %d kB", &kb); n == 1 {
			m.HWMKB = kb
		}
		if n, _ := fmt.Sscanf(line, "VmRSS: %d kB", &kb); n == 1 {
			m.RSSKB = kb
		}
	}
	if m.HWMKB == 0 || m.RSSKB == 0 {
		return m, fmt.Errorf("no VmHWM/VmRSS in /proc/%d/status", pid)
	}
	return m, nil
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times (100 on Linux).
const clockTicks = 100

// cpuSeconds returns the user+system CPU time of pid, 0 if unreadable.
func cpuSeconds(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// fields after the ")" closing the command name: state is field 3,
	// utime 14 and stime 15 (1-based).
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	_, _ = fmt.Sscan(f[11], &ut)
	_, _ = fmt.Sscan(f[12], &st)
	return float64(ut+st) / clockTicks
}
