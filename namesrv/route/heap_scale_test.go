package route

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
)

// TestLiveHeapPerTopic measures the live heap the route tables hold per
// topic for the table (fillTable: 1,000 brokers x 2,000 topics,
// width 2). It runs only with RMQ_HEAP_TOPICS set (e.g. 1000000) and logs
// bytes and objects per topic; RMQ_HEAP_DISTINCT=1 gives every topic its
// own route (no two share a snapshot), RMQ_HEAP_PROFILE=FILE also writes a
// heap profile.
func TestLiveHeapPerTopic(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("RMQ_HEAP_TOPICS"))
	if err != nil || n <= 0 {
		t.Skip("set RMQ_HEAP_TOPICS (e.g. 1000000) to measure")
	}
	before := liveHeap()
	m := NewManager(Options{Logger: testLogger(t)})
	m.log.SetLevel(5)
	distinct := os.Getenv("RMQ_HEAP_DISTINCT") != ""
	fillTableWith(t, m, n, distinct)
	after := liveHeap()
	if path := os.Getenv("RMQ_HEAP_PROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
	}
	bytes := float64(after.HeapAlloc - before.HeapAlloc)
	objs := float64(after.HeapObjects - before.HeapObjects)
	t.Logf("%d topics (distinct routes: %v): live heap %.1f MB, %.0f bytes and %.2f objects per topic",
		m.Stats().Topics, distinct, bytes/1e6, bytes/float64(n), objs/float64(n))
	runtime.KeepAlive(m)
}

func liveHeap() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms
}
