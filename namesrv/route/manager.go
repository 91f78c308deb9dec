package route

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// Manager holds the route tables (RouteInfoManager). All methods are safe
// for concurrent use. Mutations serialize on one coordinator; Lookup is
// lock-free; admin reads take the coordinator's read lock; heartbeats take
// only the small liveness lock.
type Manager struct {
	opts Options
	log  hclog.Logger

	// mu is the mutation coordinator: writers hold it exclusively, admin
	// reads and the expiry scan share it. It guards the source tables.
	mu       sync.RWMutex
	mut      mutation
	byBroker map[string]*topicSet                              // brokerName -> topics with its QueueData
	brokers  map[string]*brokerState                           // brokerAddrTable
	clusters map[string]map[string]struct{}                    // clusterAddrTable
	filters  map[addrKey][]string                              // filterServerTable
	mappings map[string]map[string]*wire.TopicQueueMappingInfo // topicQueueMappingInfoTable, copy-on-write per topic
	addrUses map[string]int                                    // address -> the (group, id) pairs mapping to it
	// keptFilters: address -> the clusters whose filter servers of it
	// outlived a live entry dropped at step 6, until the address is swept.
	keptFilters map[string]map[string]struct{}

	rowsAdded uint64 // rows ever added to topicQueueTable (their insertion order, see tableOrder)
	topicPeak int    // most rows topicQueueTable ever held (its Java table size)
	removals  uint64 // bumped whenever a QueueData is removed (see coverage)
	edits     uint64 // bumped whenever a QueueData is added, changed or removed (see applied)

	shared  shareTable  // BrokerData lists shared between snapshots
	interns internTable // snapshots shared by topics with equal routes
	pub     pubIndex    // topicQueueTable, what Lookup reads
	live    liveTable   // brokerLiveTable and its expiry heap
	unreg   unregQueue
	counts  counters

	startOnce, stopOnce sync.Once
	stop                chan struct{}
	wg                  sync.WaitGroup
}

type counters struct {
	topics, brokers, clusters                        atomic.Int64
	registrations, expiries, drops, unregistrations  atomic.Uint64
	staleUnregistrations, publications, expiryVisits atomic.Uint64
	unchanged                                        atomic.Uint64
}

// NewManager returns an empty Manager. Call Start to run the expiry scan
// and the unregistration worker.
func NewManager(opts Options) *Manager {
	opts = opts.withDefaults()
	m := &Manager{
		opts:        opts,
		log:         opts.Logger.Named("route"),
		byBroker:    map[string]*topicSet{},
		brokers:     map[string]*brokerState{},
		clusters:    map[string]map[string]struct{}{},
		filters:     map[addrKey][]string{},
		mappings:    map[string]map[string]*wire.TopicQueueMappingInfo{},
		addrUses:    map[string]int{},
		keptFilters: map[string]map[string]struct{}{},
		interns:     internTable{},
		stop:        make(chan struct{}),
	}
	m.mut = mutation{m: m}
	m.pub.seed = maphash.MakeSeed()
	m.live.init()
	m.unreg.init(opts.UnregisterQueueCap)
	return m
}

// Start runs the expiry scan every ScanInterval (first run one interval
// after start) and the unregistration worker. Later calls do nothing.
func (m *Manager) Start() {
	m.startOnce.Do(func() {
		m.unreg.running.Store(true)
		m.wg.Add(2)
		go m.runScanner()
		go m.runUnregister()
	})
}

// Stop stops the scan and the worker, applies the unregistrations still
// queued, and waits for both to exit.
func (m *Manager) Stop() {
	m.stopOnce.Do(func() {
		close(m.stop)
		m.wg.Wait()
		m.unreg.running.Store(false)
	})
}

func (m *Manager) runScanner() {
	defer m.wg.Done()
	tick := time.NewTicker(m.opts.ScanInterval)
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
			if n := m.ScanExpired(m.opts.Clock.Mono()); n > 0 {
				m.log.Warn("expired brokers", "count", n)
			}
		}
	}
}

// Stats are counters of the route tables.
type Stats struct {
	Topics, Brokers, Clusters, LiveBrokers int
	UnregisterQueueDepth                   int
	UnregisterDrops                        uint64 // Unregister refused: queue full
	Registrations                          uint64 // RegisterBroker calls and RegisterIfUnchanged successes
	Expiries                               uint64 // live entries found expired
	Unregistrations                        uint64 // unregister requests applied
	StaleUnregistrations                   uint64 // skipped: the live entry has a newer generation
	Publications                           uint64 // topic snapshots rebuilt or withdrawn
	UnchangedRegistrations                 uint64 // registrations applied by RegisterIfUnchanged
}

// Stats returns the current counters.
func (m *Manager) Stats() Stats {
	c := &m.counts
	return Stats{
		Topics:                 int(c.topics.Load()),
		Brokers:                int(c.brokers.Load()),
		Clusters:               int(c.clusters.Load()),
		LiveBrokers:            m.live.size(),
		UnregisterQueueDepth:   len(m.unreg.ch),
		UnregisterDrops:        c.drops.Load(),
		Registrations:          c.registrations.Load(),
		Expiries:               c.expiries.Load(),
		Unregistrations:        c.unregistrations.Load(),
		StaleUnregistrations:   c.staleUnregistrations.Load(),
		Publications:           c.publications.Load(),
		UnchangedRegistrations: c.unchanged.Load(),
	}
}
