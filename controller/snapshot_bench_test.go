//go:build embedded_controller

package controller

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// countSink is a raft.SnapshotSink that keeps only the byte count.
type countSink struct{ n int64 }

func (s *countSink) Write(p []byte) (int, error) { s.n += int64(len(p)); return len(p), nil }
func (s *countSink) Close() error                { return nil }
func (s *countSink) ID() string                  { return "count" }
func (s *countSink) Cancel() error               { return nil }

// hostileState is a hostile state: 20 broker sets named by 4 MiB each
// (80 MiB of names).
func hostileState(tb testing.TB) *FSM {
	f := NewFSM(nil)
	for i := range 20 {
		name := strings.Repeat(string(rune('a'+i)), 4<<20)
		require.NoError(tb, f.applyEvents(applyBrokerIDEvent{ClusterName: "c", BrokerName: name,
			BrokerAddress: "10.0.0.1:10911", NewBrokerID: 1}))
	}
	return f
}

// peakHeap runs fn and returns the peak heap growth over the heap before
// it, sampled every 200µs.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
				peak.Store(m.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	fn()
	close(done)
	return peak.Load()
}

// BenchmarkSnapshotHostileState persists and restores the 80 MiB state
// and reports the snapshot size and the peak heap growth of each half.
func BenchmarkSnapshotHostileState(b *testing.B) {
	f := hostileState(b)
	data := snapshotBytes(b, f)
	var persistPeak, restorePeak uint64
	var persistTime, restoreTime time.Duration
	b.ResetTimer()
	for range b.N {
		snap, err := f.Snapshot()
		require.NoError(b, err)
		persistPeak = max(persistPeak, peakHeap(func() {
			start := time.Now()
			require.NoError(b, snap.Persist(&countSink{}))
			persistTime += time.Since(start)
		}))
		g := NewFSM(nil)
		restorePeak = max(restorePeak, peakHeap(func() {
			start := time.Now()
			require.NoError(b, g.Restore(io.NopCloser(bytes.NewReader(data))))
			restoreTime += time.Since(start)
		}))
	}
	b.ReportMetric(float64(persistTime.Milliseconds())/float64(b.N), "persist-ms")
	b.ReportMetric(float64(restoreTime.Milliseconds())/float64(b.N), "restore-ms")
	b.ReportMetric(float64(len(data))/(1<<20), "snapshot-MiB")
	b.ReportMetric(float64(persistPeak)/(1<<20), "persist-peak-heap-MiB")
	b.ReportMetric(float64(restorePeak)/(1<<20), "restore-peak-heap-MiB")
}

// BenchmarkRestoreHostileStateV1 restores the 80 MiB state from a version
// 1 (JSON) snapshot, as an earlier binary wrote it.
func BenchmarkRestoreHostileStateV1(b *testing.B) {
	f := hostileState(b)
	var st *state
	f.read(func(s *state) { st = s.Clone() })
	data, err := encodeSnapshotV1(st)
	require.NoError(b, err)
	var peak uint64
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		g := NewFSM(nil)
		peak = max(peak, peakHeap(func() {
			start := time.Now()
			require.NoError(b, g.Restore(io.NopCloser(bytes.NewReader(data))))
			total += time.Since(start)
		}))
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "restore-ms")
	b.ReportMetric(float64(peak)/(1<<20), "restore-peak-heap-MiB")
	b.ReportMetric(float64(len(data))/(1<<20), "snapshot-MiB")
}
