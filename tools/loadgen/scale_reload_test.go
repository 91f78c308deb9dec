package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestLoadsOf: three loads for the 1M row and one for the others, unless
// -scale-loads says otherwise.
func TestLoadsOf(t *testing.T) {
	var o options
	require.Equal(t, 3, o.loadsOf(scaleRow{Topics: 1_000_000}))
	require.Equal(t, 1, o.loadsOf(scaleRow{Topics: 100_000}))
	o.scaleLoads = 2
	require.Equal(t, 2, o.loadsOf(scaleRow{Topics: 1_000_000}))
	require.Equal(t, 2, o.loadsOf(scaleRow{Topics: 100}))
	_, err := parseFlags([]string{"-workload", "scale", "-scale-loads", "21"}, testWriter{t})
	require.Error(t, err)
	o, err = parseFlags([]string{"-workload", "scale", "-scale-loads", "4", "-scale-heap"}, testWriter{t})
	require.NoError(t, err)
	require.Equal(t, 4, o.scaleLoads)
	require.True(t, o.scaleHeap)
}

// TestLoadQueues: consecutive loads differ in every topic's write queue
// count.
func TestLoadQueues(t *testing.T) {
	require.Equal(t, []int32{4, 5, 4, 5}, []int32{loadQueues(1), loadQueues(2), loadQueues(3), loadQueues(4)})
}

func TestJoinLoads(t *testing.T) {
	loads := []loadRun{{PeakRSSMB: 612.4}, {PeakRSSMB: 640.2}, {PeakRSSMB: 655.7}}
	require.Equal(t, "612/640/656", joinLoads(loads, 0, func(l loadRun) float64 { return l.PeakRSSMB }))
	require.Equal(t, "-", joinLoads(nil, 0, func(l loadRun) float64 { return l.PeakRSSMB }))
	require.InDelta(t, 655.7, maxLoadPeak(loads), 1e-9)
}

// TestParseHeap reads the Go collector's families and derives the live
// heap from the GC target, unless a GOMEMLIMIT sets the target.
func TestParseHeap(t *testing.T) {
	text := "# HELP go_memstats_heap_alloc_bytes x\n# TYPE go_memstats_heap_alloc_bytes gauge\n" +
		"go_memstats_heap_alloc_bytes 3.5e+08\ngo_memstats_heap_alloc_bytes_total 9e+09\n" +
		"go_memstats_next_gc_bytes 6e+08\ngo_gc_gogc_percent 50\n"
	h, err := parseHeap(strings.NewReader(text))
	require.NoError(t, err)
	require.InDelta(t, 350, h.AllocMB, 1e-9)
	require.InDelta(t, 600, h.NextGCMB, 1e-9)
	require.InDelta(t, 400, h.LiveMB, 1e-9)
	h, err = parseHeap(strings.NewReader(text + "go_gc_gomemlimit_bytes 9.223372036854776e+18\n"))
	require.NoError(t, err)
	require.InDelta(t, 400, h.LiveMB, 1e-9, "no limit set")
	h, err = parseHeap(strings.NewReader(text + "go_gc_gomemlimit_bytes 6.291456e+08\n"))
	require.NoError(t, err)
	require.Zero(t, h.LiveMB, "the GC target follows GOMEMLIMIT")
	_, err = parseHeap(strings.NewReader("go_memstats_heap_alloc_bytes 1\n"))
	require.Error(t, err)
	_, err = parseHeap(strings.NewReader("go_memstats_heap_alloc_bytes x\ngo_memstats_next_gc_bytes 1\n"))
	require.Error(t, err)
}

// TestScaleRSSTargetIsMaxOverLoads: the 1M row's RSS target takes the
// largest peak after any load against the 641 MB limit.
func TestScaleRSSTargetIsMaxOverLoads(t *testing.T) {
	loads := []loadRun{{PeakRSSMB: 630}, {PeakRSSMB: 650}, {PeakRSSMB: 640}}
	r := &report{Scale: []*scaleResult{{
		scaleRow: scaleRow{Topics: 1_000_000}, Loads: loads, MaxLoadRSSMB: maxLoadPeak(loads),
		Route: serverRun{PeakRSSMB: 700},
	}}}
	r.evaluate()
	var found bool
	for _, tg := range r.Targets {
		if strings.Contains(tg.Name, "peak RSS") {
			found = true
			require.Equal(t, "scale 1000000 topics: peak RSS (MB), 3 loads", tg.Name)
			require.InDelta(t, 650, tg.Value, 1e-9)
			require.Equal(t, "<= 641", tg.Goal)
			require.False(t, tg.Met)
		}
	}
	require.True(t, found)
}

// TestScaleRowReloads runs a tiny scale row loaded twice end to end, the
// NameServer in-process (this test binary, -profile-dir) with /metrics:
// every load is timed and measured, and the lookups see the second
// load's routes (write queue count 5).
func TestScaleRowReloads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three server processes")
	}
	o, err := parseFlags([]string{"-workload", "scale", "-duration", "200ms", "-warmup", "50ms", "-rounds", "1",
		"-scale-loads", "2", "-scale-heap", "-profile-dir", t.TempDir()}, testWriter{t})
	require.NoError(t, err)
	e, err := newEnv(o, testlog.New(t, "loadgen"))
	require.NoError(t, err)
	t.Cleanup(e.cleanup)
	res, err := e.runScaleRow(scaleRow{Topics: 100, Brokers: 10, Width: 2, Conns: 2})
	require.NoError(t, err)
	require.Len(t, res.Loads, 2)
	for i, l := range res.Loads {
		require.Equal(t, int64(i+1), l.Counter)
		require.Equal(t, loadQueues(i+1), l.WriteQueues)
		require.Positive(t, l.RegisterS)
		require.Positive(t, l.PeakRSSMB)
		require.GreaterOrEqual(t, l.PeakRSSMB, l.RSSMB)
		require.NotNil(t, l.Heap, "load %d: heap from /metrics", i+1)
		require.Positive(t, l.Heap.AllocMB)
	}
	require.GreaterOrEqual(t, res.Loads[1].PeakRSSMB, res.Loads[0].PeakRSSMB, "VmHWM never falls")
	require.InDelta(t, res.Loads[1].PeakRSSMB, res.MaxLoadRSSMB, 1e-9)
	require.Equal(t, res.Loads[0].RegisterS, res.RegisterS)
	require.Positive(t, res.LeanRegisterS)
	require.Positive(t, res.LimitRegisterS)
	require.Positive(t, res.Route.Latency.Count)
	routeBody, err := os.ReadFile(filepath.Join(e.dir, "route-body.json"))
	require.NoError(t, err)
	require.Contains(t, string(routeBody), `"writeQueueNums":5`)
	require.NotContains(t, string(routeBody), `"writeQueueNums":4`)
	var out strings.Builder
	(&report{Scale: []*scaleResult{res}}).printScale(&out)
	t.Log(out.String())
	require.Contains(t, out.String(), "2 loads (write queues 4/5)")
}
