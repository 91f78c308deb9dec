package namesrv

import (
	"maps"
	"net/http"

	"github.com/rmqgo/nameserver/metrics/statuspage"
)

// WithMetricsRoute mounts h at pattern (an http.ServeMux pattern) on the
// metrics listener, beside /metrics, /healthz and /readyz (the status
// page, package metrics/statuspage). Nothing is mounted when metrics are
// off.
func WithMetricsRoute(pattern string, h http.Handler) Option {
	return func(o *options) {
		if o.routes == nil {
			o.routes = map[string]http.Handler{}
		}
		o.routes[pattern] = h
	}
}

// withRoutes is the address service's routes with the extra ones.
func withRoutes(routes, extra map[string]http.Handler) map[string]http.Handler {
	if len(extra) == 0 {
		return routes
	}
	out := maps.Clone(extra)
	maps.Copy(out, routes)
	return out
}

var _ statuspage.NamesrvSource = (*Server)(nil)

// NamesrvStatus implements statuspage.NamesrvSource: the listeners once
// serving, the route tables' sizes and at most limit live brokers
// (route.Manager.LiveBrokers).
func (s *Server) NamesrvStatus(limit int) statuspage.Namesrv {
	st := s.routes.Stats()
	live, total := s.routes.LiveBrokers(limit)
	out := statuspage.Namesrv{Topics: st.Topics, Clusters: st.Clusters, BrokerGroups: st.Brokers,
		LiveBrokers: total, Brokers: make([]statuspage.Broker, len(live))}
	for i, b := range live {
		out.Brokers[i] = statuspage.Broker{Cluster: b.Cluster, Name: b.BrokerName, Addr: b.Addr, ID: b.BrokerID,
			SinceHeartbeat: b.Since, Topics: b.Topics}
	}
	// serving is stored after Start set the listeners: it orders their
	// reads here.
	if s.serving.Load() != nil {
		out.Listeners = append(out.Listeners, statuspage.Listener{Name: "NameServer remoting", Addr: s.ln.Addr().String()})
		if addr := s.MetricsAddr(); addr != nil {
			out.Listeners = append(out.Listeners, statuspage.Listener{Name: "metrics (this page)", Addr: addr.String()})
		}
	}
	return out
}
