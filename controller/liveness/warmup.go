//go:build embedded_controller

package liveness

import (
	"time"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// ViewWarmup is how long a node serves heartbeats before its table is a
// complete view of liveness: the default heartbeat timeout (a Java broker
// beats every second, to every controller it finds reachable, which it
// re-checks every 3 s, and announces 10 s).
const ViewWarmup = time.Duration(DefaultTimeoutMillis) * time.Millisecond

// StartServing starts the warm-up now (New, and again when the remoting
// server starts serving).
func (m *Table) StartServing() { m.serving.Store(int64(m.Now())) }

// ViewCompleteIn is how long until the table is a complete view of
// liveness; 0 once it is.
func (m *Table) ViewCompleteIn() time.Duration {
	return max(ViewWarmup-m.Now().Sub(monotime.Mono(m.serving.Load())), 0)
}

// ViewComplete reports whether the node has served for viewWarmup.
func (m *Table) ViewComplete() bool { return m.ViewCompleteIn() == 0 }
