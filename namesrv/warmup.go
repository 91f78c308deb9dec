package namesrv

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/remoting"
)

// Warm-up forwarding (ours; Java has no equivalent). A restarted NameServer
// knows no route until the brokers register again, and rocketmq-client-go
// tries its next NameServer only on a transport error, never on
// TOPIC_NOT_EXIST. So for warmupForwardSeconds after Start, a
// GET_ROUTEINFO_BY_TOPIC this node would answer TOPIC_NOT_EXIST is asked of
// the warmupForwardPeers in turn, and the first SUCCESS is returned as the
// peer sent it (remark, ext fields, body), with the requester's opaque.
const (
	// forwardedMarker marks a forwarded lookup: a peer never forwards it again.
	forwardedMarker = "rmqgoForwarded"
	// peerTimeout bounds one peer's answer.
	peerTimeout = time.Second
	// forwardBudget bounds all peers of one lookup together, well under the
	// clients' request timeouts (Java's ClientConfig.mqClientApiTimeout 3 s,
	// rocketmq-client-go's 6 s).
	forwardBudget = 1500 * time.Millisecond
	// maxForwards bounds the forwards in flight across all connections;
	// over it a lookup is answered locally.
	maxForwards = 256
)

// warmup forwards unknown-topic lookups to the peers while the node warms up.
type warmup struct {
	log      hclog.Logger
	peerList []string
	window   time.Duration
	dialTLS  peerTLS
	rs       *remoting.Server
	local    remoting.HandlerFunc // the plain lookup handler
	peers    []*peerConn          // this node's own entry left out; set by start
	until    time.Time            // end of the window; set by start
	next     atomic.Uint32
	slots    chan struct{}
	ctx      context.Context // cancelled at close
	cancel   context.CancelFunc
	timer    *time.Timer

	peerTimeout, budget time.Duration // peerTimeout and forwardBudget; tests change them

	forwarded, answered, failed atomic.Uint64
}

// newWarmup returns nil when warm-up forwarding is off.
func newWarmup(cfg *config.NamesrvConfig, log hclog.Logger, dialTLS peerTLS, o options) *warmup {
	peers, _ := cfg.WarmupPeers() // validated by New
	if !cfg.WarmupEnabled() || len(peers) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &warmup{log: log, peerList: peers, window: cfg.WarmupWindow(), dialTLS: dialTLS,
		slots: make(chan struct{}, maxForwards), ctx: ctx, cancel: cancel,
		peerTimeout: peerTimeout, budget: forwardBudget}
	if t := o.warmupTimeouts; t[0] > 0 {
		w.peerTimeout, w.budget = t[0], t[1]
	}
	return w
}

// register installs the lookup handler: on its own goroutine per request
// (RegisterAsync) while warming, since a forward may wait on a peer; the
// plain local handler without warm-up, or from the window's end.
func (w *warmup) register(rs *remoting.Server, local remoting.HandlerFunc) {
	if w == nil {
		rs.RegisterTransient(remoting.GetRouteinfoByTopic, local)
		return
	}
	w.rs, w.local = rs, local
	rs.RegisterAsync(remoting.GetRouteinfoByTopic, w.handler(local))
}

// start opens the window (the listener bound at listen) and schedules the
// return to the plain handler.
func (w *warmup) start(listen net.Addr) {
	if w == nil {
		return
	}
	checkInterfaceAddrs(w.log)
	for _, addr := range w.peerList {
		if isSelf(addr, listen) {
			w.log.Debug("own address in warmupForwardPeers ignored", "addr", addr)
			continue
		}
		w.peers = append(w.peers, &peerConn{addr: addr, log: w.log.Named("peer"), tls: w.dialTLS})
	}
	if len(w.peers) == 0 { // only this node listed
		w.rs.RegisterTransient(remoting.GetRouteinfoByTopic, w.local)
		w.log.Warn("warm-up forwarding off: warmupForwardPeers names only this node")
		return
	}
	w.until = time.Now().Add(w.window)
	w.timer = time.AfterFunc(w.window, func() {
		w.rs.RegisterTransient(remoting.GetRouteinfoByTopic, w.local)
		w.log.Info("warm-up forwarding over", "forwarded", w.forwarded.Load(), "answered", w.answered.Load())
	})
	w.log.Info("warm-up forwarding on", "peers", len(w.peers), "seconds", w.window.Seconds())
}

// close stops the window, cancels forwards in flight and closes the peer
// connections.
func (w *warmup) close() {
	if w == nil {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel()
	for _, p := range w.peers {
		p.close()
	}
}

// handler answers locally and forwards what would be TOPIC_NOT_EXIST.
func (w *warmup) handler(local remoting.HandlerFunc) remoting.HandlerFunc {
	return func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		resp, err := local(c, req)
		if err != nil || resp == nil || resp.Code != remoting.TopicNotExist || !w.applies(req) {
			return resp, err
		}
		if fwd := w.forward(req); fwd != nil {
			return fwd, nil
		}
		return resp, nil
	}
}

// applies: inside the window, not itself forwarded, not oneway.
func (w *warmup) applies(req *remoting.Command) bool {
	return len(w.peers) > 0 && time.Now().Before(w.until) &&
		req.ExtFields[forwardedMarker] != "true" && !req.IsOneway()
}

// forward asks the peers in turn, from a rotating first one, and returns
// the first SUCCESS answer, or nil.
func (w *warmup) forward(req *remoting.Command) *remoting.Command {
	select {
	case w.slots <- struct{}{}:
		defer func() { <-w.slots }()
	default:
		w.log.Debug("lookup not forwarded: too many in flight", "topic", req.ExtFields["topic"])
		return nil
	}
	w.forwarded.Add(1)
	ctx, cancel := context.WithTimeout(w.ctx, w.budget)
	defer cancel()
	fwd, first := forwardCopy(req), int(w.next.Add(1))
	for i := range w.peers {
		p := w.peers[(first+i)%len(w.peers)]
		if resp := w.ask(ctx, p, fwd); resp != nil {
			w.answered.Add(1)
			return resp
		}
		if ctx.Err() != nil {
			break
		}
	}
	w.failed.Add(1)
	return nil
}

// ask sends fwd to one peer within peerTimeout; nil unless it says SUCCESS.
func (w *warmup) ask(ctx context.Context, p *peerConn, fwd *remoting.Command) *remoting.Command {
	ctx, cancel := context.WithTimeout(ctx, w.peerTimeout)
	defer cancel()
	resp, err := p.invoke(ctx, fwd)
	switch {
	case err != nil:
		w.log.Debug("forwarded lookup failed", "peer", p.addr, "topic", fwd.ExtFields["topic"], "error", err)
	case resp.Code != remoting.Success:
		w.log.Debug("peer did not know the topic", "peer", p.addr, "topic", fwd.ExtFields["topic"], "code", resp.Code)
	default:
		w.log.Debug("lookup answered by peer", "peer", p.addr, "topic", fwd.ExtFields["topic"])
		return resp
	}
	return nil
}

// lookupFields are the ext fields a lookup reads, the only ones forwarded:
// Java's GetRouteInfoRequestHeader (topic, acceptStandardJsonOnly) and
// ZoneRouteRPCHook's zone fields. Anything else a client attaches (the
// ACL signature, a body, a remark, more fields) would be multiplied by
// the peers.
var lookupFields = [...]string{"topic", "acceptStandardJsonOnly", "__ZONE_MODE", "__ZONE_NAME"}

// forwardCopy is req as sent to a peer: the requester's version and
// language, its lookupFields and the marker; no ACL signature (the marker
// would break it; the peer sees an anonymous read), remark or body.
func forwardCopy(req *remoting.Command) *remoting.Command {
	ext := make(map[string]string, len(lookupFields)+1)
	for _, k := range lookupFields {
		if v, ok := req.ExtFields[k]; ok {
			ext[k] = v
		}
	}
	ext[forwardedMarker] = "true"
	return &remoting.Command{Code: req.Code, Language: req.Language, Version: req.Version, ExtFields: ext}
}

// collectors are the warm-up counters for the metrics registry.
func (w *warmup) collectors() []metrics.Collector {
	counter := func(name, help string, v *atomic.Uint64) metrics.Collector {
		return metrics.NewCounterFunc(metrics.NamesrvPrefix+name, help, func() float64 { return float64(v.Load()) })
	}
	return []metrics.Collector{
		counter("_warmup_forwards_total", "Route lookups forwarded to warm-up peers.", &w.forwarded),
		counter("_warmup_forwards_answered_total", "Forwarded lookups a peer answered with SUCCESS.", &w.answered),
		counter("_warmup_forwards_failed_total", "Forwarded lookups no peer answered with SUCCESS.", &w.failed),
	}
}

// registerWarmupMetrics exports the warm-up counters when both warm-up
// forwarding and metrics are on.
func (s *Server) registerWarmupMetrics() {
	if s.warm != nil && s.metrics != nil {
		s.metrics.reg.Register(s.warm.collectors()...)
	}
}
