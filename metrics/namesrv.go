package metrics

import (
	"github.com/rmqgo/nameserver/namesrv/route"
)

// NamesrvPrefix prefixes every NameServer family.
const NamesrvPrefix = "rocketmq_namesrv"

// NamesrvSource is what the NameServer families read at scrape time. Nil
// fields leave their families out.
type NamesrvSource struct {
	// Routes returns the route table statistics (route.Manager.Stats).
	Routes func() route.Stats
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
}

// NewNamesrv registers the NameServer families in reg: the remoting
// families (NewRemoting), rocketmq_namesrv_kv_writes_total{op,result},
// and those read from src at scrape time.
func NewNamesrv(reg *Registry, src NamesrvSource) *Namesrv {
	n := &Namesrv{
		Remoting: NewRemoting(reg, NamesrvPrefix),
		kvWrites: NewCounterVec(NamesrvPrefix+"_kv_writes_total",
			"KV config store writes committed (result=ok) or failed (result=error), by operation.", "op", "result"),
	}
	reg.Register(n.kvWrites, CollectorFunc(src.collect))
	return n
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

// collect adds the scrape-time families.
func (src NamesrvSource) collect(w *Writer) {
	if src.Routes != nil {
		collectRouteStats(w, src.Routes())
	}
	if src.KV != nil {
		ns, keys := src.KV()
		w.Gauge(NamesrvPrefix+"_kv_namespaces", "KV config namespaces.", float64(ns))
		w.Gauge(NamesrvPrefix+"_kv_keys", "KV config keys.", float64(keys))
	}
	if src.Ready != nil {
		w.Gauge(NamesrvPrefix+"_ready", "1 when /readyz answers 200.", boolFloat(src.Ready() == nil))
	}
}

func collectRouteStats(w *Writer, s route.Stats) {
	const p = NamesrvPrefix
	w.Gauge(p+"_topics", "Topics in the route table.", float64(s.Topics))
	w.Gauge(p+"_brokers", "Broker names (broker sets) in the route table.", float64(s.Brokers))
	w.Gauge(p+"_clusters", "Clusters in the route table.", float64(s.Clusters))
	w.Gauge(p+"_live_brokers", "Broker addresses with a live registration.", float64(s.LiveBrokers))
	w.Gauge(p+"_unregister_queue_depth", "Unregistrations waiting for the batch worker.", float64(s.UnregisterQueueDepth))
	w.Counter(p+"_unregister_drops_total", "Unregistrations refused because the queue was full.", float64(s.UnregisterDrops))
	w.Counter(p+"_broker_registrations_total", "REGISTER_BROKER requests applied.", float64(s.Registrations))
	w.Counter(p+"_broker_expiries_total", "Broker registrations expired by the liveness scan.", float64(s.Expiries))
	w.Counter(p+"_broker_unregistrations_total", "Unregistrations applied.", float64(s.Unregistrations))
	w.Counter(p+"_stale_unregistrations_total", "Unregistrations skipped: the broker had re-registered.", float64(s.StaleUnregistrations))
	w.Counter(p+"_route_publications_total", "Topic route snapshots rebuilt or withdrawn.", float64(s.Publications))
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
