package metrics

import (
	"runtime"
	"runtime/pprof"
)

// collectGo adds the Go runtime families, named as client_golang's Go
// collector names them so stock dashboards work.
func collectGo(w *Writer) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.Gauge("go_info", "Information about the Go environment.", 1, "version", runtime.Version())
	w.Gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	w.Gauge("go_threads", "Number of OS threads created.", float64(pprof.Lookup("threadcreate").Count()))
	w.Gauge("go_gomaxprocs", "Value of GOMAXPROCS.", float64(runtime.GOMAXPROCS(0)))
	collectMemStats(w, &ms)
}

func collectMemStats(w *Writer, ms *runtime.MemStats) {
	w.Gauge("go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use.", float64(ms.Alloc))
	w.Counter("go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap until now.", float64(ms.TotalAlloc))
	w.Counter("go_memstats_mallocs_total", "Total number of heap objects allocated.", float64(ms.Mallocs))
	w.Counter("go_memstats_frees_total", "Total number of heap objects frees.", float64(ms.Frees))
	w.Gauge("go_memstats_sys_bytes", "Number of bytes obtained from system.", float64(ms.Sys))
	w.Gauge("go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", float64(ms.HeapAlloc))
	w.Gauge("go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use.", float64(ms.HeapInuse))
	w.Gauge("go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used.", float64(ms.HeapIdle))
	w.Gauge("go_memstats_heap_released_bytes", "Number of heap bytes released to OS.", float64(ms.HeapReleased))
	w.Gauge("go_memstats_heap_objects", "Number of currently allocated objects.", float64(ms.HeapObjects))
	w.Gauge("go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator.", float64(ms.StackInuse))
	w.Gauge("go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place.", float64(ms.NextGC))
	w.Gauge("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", float64(ms.LastGC)/1e9)
	w.Counter("go_gc_cycles_total", "Number of completed GC cycles.", float64(ms.NumGC))
	w.Counter("go_gc_pause_seconds_total", "Total stop-the-world GC pause time.", float64(ms.PauseTotalNs)/1e9)
}
