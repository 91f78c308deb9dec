package yield

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunnableMetricIsSupported(t *testing.T) {
	s := []metrics.Sample{{Name: runnableMetric}}
	metrics.Read(s)
	require.Equal(t, metrics.KindUint64, s[0].Value.Kind())
}

// TestAtLetsAWaitingGoroutineRun: on one processor, a goroutine readied
// while a loop runs gets to run before the loop ends.
func TestAtLetsAWaitingGoroutineRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ran.Store(true)
	}()
	seen := false
	for i := range 100 * Every {
		At(i)
		if ran.Load() {
			seen = true
			break
		}
	}
	wg.Wait()
	require.True(t, seen, "the waiting goroutine ran only after the loop")
}

func BenchmarkIfWaitingIdle(b *testing.B) {
	for b.Loop() {
		IfWaiting()
	}
}
