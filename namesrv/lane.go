package namesrv

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/rmqgo/nameserver/remoting"
)

// registrationNice is the scheduling niceness of the registration lane's
// thread: route lookups, which are latency-bound, win the CPU over
// registration bodies of thousands of topics, which brokers wait seconds for.
const registrationNice = 10

// lane runs handlers one at a time on a dedicated OS thread with a lower
// scheduling priority (where the OS allows one), so that decoding and
// applying large broker registrations do not delay route lookups served on
// the other threads. A request waiting for the lane keeps its frame's
// reservation of the server's frame budget (remoting holds it until the
// handler returns) and its connection is not read meanwhile, so the
// registrations queued here are bounded by serverPartialFrameBudgetBytes.
type lane struct {
	work     chan func()
	done     chan struct{}
	panicked func(v any, stack []byte) // may be nil
}

// newLane starts a lane; panicked, if not nil, is told of every panic a
// handler raised, with the stack of the panicking goroutine.
func newLane(nice int, panicked func(v any, stack []byte)) *lane {
	l := &lane{work: make(chan func()), done: make(chan struct{}), panicked: panicked}
	go l.run(nice)
	return l
}

func (l *lane) run(nice int) {
	defer close(l.done)
	// Never unlocked: the thread, with its changed priority, ends with the
	// goroutine instead of returning to the runtime's pool.
	runtime.LockOSThread()
	lowerThreadPriority(nice)
	for f := range l.work {
		f()
	}
}

// do runs h on the lane and waits for its result; a panic in h becomes an
// error for that request only.
func (l *lane) do(c *remoting.Conn, req *remoting.Command, h remoting.HandlerFunc) (resp *remoting.Command, err error) {
	finished := make(chan struct{})
	l.work <- func() {
		defer close(finished)
		resp, err = l.call(c, req, h)
	}
	<-finished
	return resp, err
}

// call runs h on the calling goroutine as do runs it on the lane: a panic
// in h becomes the same error, and l.panicked is told of it.
func (l *lane) call(c *remoting.Conn, req *remoting.Command, h remoting.HandlerFunc) (resp *remoting.Command, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panic: %v", r)
			if l.panicked != nil {
				l.panicked(r, debug.Stack())
			}
		}
	}()
	return h(c, req)
}

// handler wraps h to run on the lane.
func (l *lane) handler(h remoting.HandlerFunc) remoting.HandlerFunc {
	return func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		return l.do(c, req, h)
	}
}

// close stops the lane once no handler can use it any more.
func (l *lane) close() {
	close(l.work)
	<-l.done
}
