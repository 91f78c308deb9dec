package metrics

// NamesrvPrefix prefixes every NameServer family.
const NamesrvPrefix = "rocketmq_namesrv"

// NamesrvSource is what the NameServer families read at scrape time. Nil
// fields leave their families out.
type NamesrvSource struct {
	// Routes returns the route table statistics (the NameServer's route
	// manager's counters).
	Routes func() RouteStats
	// KV returns the number of KV namespaces and keys held.
	KV func() (namespaces, keys int)
	// Ready returns nil when the server is ready for clients.
	Ready func() error
}

// Namesrv holds the NameServer's metrics.
type Namesrv struct {
	// Remoting is the remoting.Observer of the NameServer's server.
	Remoting *Remoting
	kvWrites *CounterVec
	panics   *CounterVec
}

// NewNamesrv registers the NameServer families in reg: the remoting
// families (NewRemoting), rocketmq_namesrv_kv_writes_total{op,result},
// rocketmq_namesrv_panics_total{where} and those read from src at scrape
// time.
func NewNamesrv(reg *Registry, src NamesrvSource) *Namesrv {
	n := &Namesrv{
		Remoting: NewRemoting(reg, NamesrvPrefix),
		kvWrites: NewCounterVec(NamesrvPrefix+"_kv_writes_total",
			"KV config store writes committed (result=ok) or failed (result=error), by operation.", "op", "result"),
		panics: NewCounterVec(NamesrvPrefix+"_panics_total",
			"Panics recovered (the request failed with SYSTEM_ERROR), by where they were recovered.", "where"),
	}
	for _, where := range panicSites {
		n.panics.With(where) // exported at 0, so an alert on any increase works from the start
	}
	reg.Register(n.kvWrites, n.panics)
	reg.Register(src.collectors()...)
	return n
}

// Where a panic was recovered (the where label of panics_total).
const (
	// PanicRemoting is the remoting server's handler call (and its
	// connection hooks).
	PanicRemoting = "remoting"
	// PanicRegistrationLane is the broker registration handler: the
	// registration lane, and the part of REGISTER_BROKER that runs on the
	// connection's goroutine first (header, digest, unchanged path).
	PanicRegistrationLane = "registration_lane"
)

var panicSites = []string{PanicRemoting, PanicRegistrationLane}

// Panic counts one recovered panic.
func (n *Namesrv) Panic(where string) {
	n.panics.With(boundedLabel(where, panicSites...)).Inc()
}

// KV write operations (the op label).
const (
	KVPut             = "put"
	KVDelete          = "delete"
	KVEnsureNamespace = "ensure_namespace"
)

// KVWrite counts one KV store write.
func (n *Namesrv) KVWrite(op string, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	n.kvWrites.With(boundedLabel(op, KVPut, KVDelete, KVEnsureNamespace), result).Inc()
}

// collectors are the scrape-time families of the non-nil fields.
func (src NamesrvSource) collectors() []Collector {
	var cs []Collector
	if src.Routes != nil {
		cs = append(cs, routeCollectors(src.Routes)...)
	}
	if kv := src.KV; kv != nil {
		cs = append(cs,
			NewGaugeFunc(NamesrvPrefix+"_kv_namespaces", "KV config namespaces.",
				func() float64 { ns, _ := kv(); return float64(ns) }),
			NewGaugeFunc(NamesrvPrefix+"_kv_keys", "KV config keys.",
				func() float64 { _, keys := kv(); return float64(keys) }))
	}
	if ready := src.Ready; ready != nil {
		cs = append(cs, NewGaugeFunc(NamesrvPrefix+"_ready", "1 when /readyz answers 200.",
			func() float64 { return boolFloat(ready() == nil) }))
	}
	return cs
}

// RouteStats are the route table counters the NameServer families export.
type RouteStats struct {
	Topics, Brokers, Clusters, LiveBrokers int
	UnregisterQueueDepth                   int
	UnregisterDrops                        uint64 // unregistrations refused: queue full
	Registrations                          uint64 // registrations applied, with or without the body
	Expiries                               uint64 // live entries found expired
	Unregistrations                        uint64 // unregister requests applied
	StaleUnregistrations                   uint64 // skipped: the live entry has a newer generation
	Publications                           uint64 // topic snapshots rebuilt or withdrawn
}

// routeStat is one field of RouteStats exported as a family.
type routeStat struct {
	suffix, help string
	get          func(RouteStats) float64
}

// routeGauges are the RouteStats fields that go up and down.
var routeGauges = []routeStat{
	{"_topics", "Topics in the route table.", func(s RouteStats) float64 { return float64(s.Topics) }},
	{"_brokers", "Broker names (broker sets) in the route table.", func(s RouteStats) float64 { return float64(s.Brokers) }},
	{"_clusters", "Clusters in the route table.", func(s RouteStats) float64 { return float64(s.Clusters) }},
	{"_live_brokers", "Broker addresses with a live registration.",
		func(s RouteStats) float64 { return float64(s.LiveBrokers) }},
	{"_unregister_queue_depth", "Unregistrations waiting for the batch worker.",
		func(s RouteStats) float64 { return float64(s.UnregisterQueueDepth) }},
}

// routeCounters are the RouteStats fields that only grow.
var routeCounters = []routeStat{
	{"_unregister_drops_total", "Unregistrations refused because the queue was full.",
		func(s RouteStats) float64 { return float64(s.UnregisterDrops) }},
	{"_broker_registrations_total", "REGISTER_BROKER requests applied.",
		func(s RouteStats) float64 { return float64(s.Registrations) }},
	{"_broker_expiries_total", "Broker registrations expired by the liveness scan.",
		func(s RouteStats) float64 { return float64(s.Expiries) }},
	{"_broker_unregistrations_total", "Unregistrations applied.",
		func(s RouteStats) float64 { return float64(s.Unregistrations) }},
	{"_stale_unregistrations_total", "Unregistrations skipped: the broker had re-registered.",
		func(s RouteStats) float64 { return float64(s.StaleUnregistrations) }},
	{"_route_publications_total", "Topic route snapshots rebuilt or withdrawn.",
		func(s RouteStats) float64 { return float64(s.Publications) }},
}

// routeCollectors returns one scrape-time gauge or counter per route
// statistic, each reading stats (a handful of atomic loads).
func routeCollectors(stats func() RouteStats) []Collector {
	cs := make([]Collector, 0, len(routeGauges)+len(routeCounters))
	for _, rs := range routeGauges {
		cs = append(cs, NewGaugeFunc(NamesrvPrefix+rs.suffix, rs.help, func() float64 { return rs.get(stats()) }))
	}
	for _, rs := range routeCounters {
		cs = append(cs, NewCounterFunc(NamesrvPrefix+rs.suffix, rs.help, func() float64 { return rs.get(stats()) }))
	}
	return cs
}
