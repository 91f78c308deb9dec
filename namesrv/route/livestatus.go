package route

import (
	"cmp"
	"slices"
	"time"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// LiveBroker is one row of brokerLiveTable, for display (the status page).
type LiveBroker struct {
	Cluster, BrokerName, Addr string
	BrokerID                  int64
	// Since is the time since its last registration or heartbeat, read
	// on the monotonic clock.
	Since time.Duration
	// Topics counts the topics with a queue of BrokerName.
	Topics int
}

// LiveBrokers returns at most limit live brokers, ordered by cluster,
// broker name, broker id and address, and how many are live in all. It
// copies the rows under the liveness lock, sorts them with no lock held,
// then counts the topics of those it returns under the coordinator's read
// lock.
func (m *Manager) LiveBrokers(limit int) ([]LiveBroker, int) {
	rows := m.live.rows(m.opts.Clock.Mono())
	total := len(rows)
	slices.SortFunc(rows, func(a, b LiveBroker) int {
		return cmp.Or(cmp.Compare(a.Cluster, b.Cluster), cmp.Compare(a.BrokerName, b.BrokerName),
			cmp.Compare(a.BrokerID, b.BrokerID), cmp.Compare(a.Addr, b.Addr))
	})
	rows = rows[:min(max(limit, 0), total)]
	m.mu.RLock()
	for i := range rows {
		rows[i].Topics = m.byBroker[rows[i].BrokerName].len()
	}
	m.mu.RUnlock()
	return slices.Clip(rows), total
}

// rows copies every live entry, its age read at now.
func (l *liveTable) rows(now monotime.Mono) []LiveBroker {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LiveBroker, 0, len(l.m))
	for _, e := range l.m {
		out = append(out, LiveBroker{Cluster: e.key.cluster, BrokerName: e.name, Addr: e.key.addr, BrokerID: e.id,
			Since: now.Sub(e.last)})
	}
	return out
}
