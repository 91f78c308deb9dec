// Package yield lets long loops that run on a request goroutine give the
// processor to goroutines waiting to run (lookups queued behind a large
// registration), without paying for a reschedule when none is waiting.
//
// Go preempts a running goroutine only after about 10 ms, and a
// goroutine readied on a processor's local run queue waits there while
// that processor's current goroutine runs.
package yield

import (
	"runtime"
	"runtime/metrics"
)

// Every is how many iterations a loop runs between checks (At).
const Every = 256

// runnableMetric counts goroutines ready to run but not running.
const runnableMetric = "/sched/goroutines/runnable:goroutines"

// At calls IfWaiting after every Every-th iteration i (i counts from 0).
func At(i int) {
	if i%Every == Every-1 {
		IfWaiting()
	}
}

// IfWaiting yields the processor when some goroutine is waiting to run
// (or when the runtime cannot tell). Reading the count costs about as much
// as an uncontended Gosched; yielding with nothing waiting would hand the
// goroutine to another thread and cost far more.
func IfWaiting() {
	s := [1]metrics.Sample{{Name: runnableMetric}}
	metrics.Read(s[:])
	if v := s[0].Value; v.Kind() != metrics.KindUint64 || v.Uint64() > 0 {
		runtime.Gosched()
	}
}
