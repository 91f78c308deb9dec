package namesrv

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rmqgo/nameserver/namesrv/body"
	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/remoting"
)

// Route-body cache slots in a TopicSnapshot: flavour × acting-master view.
const (
	slotDefault = iota
	slotStandard
	slotActingDefault
	slotActingStandard
)

// versionStandardJSON is MQVersion V4_9_4: from it on clients get standard JSON.
const versionStandardJSON = 401

// orderTopicNamespace is NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG.
const orderTopicNamespace = "ORDER_TOPIC_CONFIG"

const topicNotExistFormat = "No topic route info in name server for the topic: %s\n" +
	"See https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details."

// routeReader is what the route lookup needs from the route tables.
type routeReader interface {
	Lookup(topic string) *route.TopicSnapshot
}

// kvReader is what lookups need from the KV store.
type kvReader interface {
	Get(ns, key string) (string, bool)
}

// routeProcessor answers GET_ROUTEINFO_BY_TOPIC (105).
type routeProcessor struct {
	routes  routeReader
	kv      kvReader
	cfg     configSource
	started time.Time
	cache   routeCache // bodies cached in snapshots; the route manager's OnRetire must be retireRouteBodies
}

func (p *routeProcessor) getRouteInfo(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	cfg := p.cfg.Load()
	if cfg.NeedWaitForService && time.Since(p.started) < time.Duration(cfg.WaitSecondsForService)*time.Second {
		return errorResponse(req, ErrNotReady), nil
	}
	topic, ok := req.ExtFields["topic"]
	if !ok {
		topic = "null"
	}
	snap := p.routes.Lookup(topic)
	if snap == nil {
		return remoting.NewResponse(req, remoting.TopicNotExist, fmt.Sprintf(topicNotExistFormat, topic)), nil
	}
	resp := remoting.NewResponse(req, remoting.Success, "")
	resp.Body = p.routeBody(req, snap, cfg.SupportActingMaster, cfg.OrderMessageEnable)
	return resp, nil
}

// routeBody picks the view and flavour, serving the snapshot's cached
// encoding unless the request needs a per-request variant (order config or
// zone filtering).
func (p *routeProcessor) routeBody(req *remoting.Command, snap *route.TopicSnapshot, acting, order bool) []byte {
	r, slot := snap.Route, slotDefault
	if acting && snap.ActingMaster != nil {
		r, slot = snap.ActingMaster, slotActingDefault
	}
	flavour := body.FastjsonDefault
	if req.Version >= versionStandardJSON || strings.EqualFold(req.ExtFields["acceptStandardJsonOnly"], "true") {
		flavour, slot = body.Standard, slot+1
	}
	zone, zoned := zoneOf(req)
	var conf string
	if order {
		conf, _ = p.kv.Get(orderTopicNamespace, snap.Topic)
	}
	if !zoned && conf == "" {
		return p.cache.body(snap, slot, r, flavour)
	}
	view := *r
	view.OrderTopicConf = conf
	if zoned {
		view = filterZone(view, zone)
		flavour = body.FastjsonDefault
	}
	return encodeRoute(&view, flavour)
}

// zoneOf reports the zone of a request in zone mode (ZoneRouteRPCHook).
func zoneOf(req *remoting.Command) (string, bool) {
	if !strings.EqualFold(req.ExtFields["__ZONE_MODE"], "true") {
		return "", false
	}
	zone := req.ExtFields["__ZONE_NAME"]
	if strings.TrimSpace(zone) == "" {
		return "", false
	}
	return zone, true
}

// filterZone keeps the broker groups without a master or in the zone, and
// the queues and filter servers of those kept (ZoneRouteRPCHook).
func filterZone(r route.TopicRouteData, zone string) route.TopicRouteData {
	removed := map[string]bool{}
	out := r
	out.BrokerDatas = nil
	out.FilterServerTable = map[string][]string{}
	for _, bd := range r.BrokerDatas {
		if _, hasMaster := bd.BrokerAddrs[route.MasterID]; hasMaster && !strings.EqualFold(bd.ZoneName, zone) {
			removed[bd.BrokerName] = true
			continue
		}
		out.BrokerDatas = append(out.BrokerDatas, bd)
	}
	out.QueueDatas = nil
	for _, qd := range r.QueueDatas {
		if !removed[qd.BrokerName] {
			out.QueueDatas = append(out.QueueDatas, qd)
		}
	}
	for addr, fs := range r.FilterServerTable {
		if !addrOfRemoved(r.BrokerDatas, removed, addr) {
			out.FilterServerTable[addr] = fs
		}
	}
	return out
}

func addrOfRemoved(bds []route.BrokerData, removed map[string]bool, addr string) bool {
	for _, bd := range bds {
		if !removed[bd.BrokerName] {
			continue
		}
		for _, a := range bd.BrokerAddrs {
			if a == addr {
				return true
			}
		}
	}
	return false
}

// DefaultRouteCacheBytes is the default budget for encoded route bodies
// kept in topic snapshots: about 70,000 bodies of four broker groups.
// Lookups of topics beyond it encode per request.
const DefaultRouteCacheBytes = 64 << 20

// maxPooledBuf is the largest encode buffer returned to the pool.
const maxPooledBuf = 64 << 10

// encodeBufs recycles the scratch buffers route bodies are encoded into
// before they are copied out at their exact size.
var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// routeCache counts the bytes of the route bodies cached in snapshot slots
// against a budget. A body is counted when a slot takes it and uncounted
// when the snapshot is retired (retireRouteBodies), so the counter follows
// what published snapshots hold. The zero value uses the default budget.
type routeCache struct {
	budget int64 // 0 = DefaultRouteCacheBytes; < 0 = cache nothing
	used   atomic.Int64
}

// cachedBody is what a snapshot slot holds: an exact-size encoded body and
// the cache that counted it.
type cachedBody struct {
	b     []byte
	owner *routeCache
}

func (c *routeCache) limit() int64 {
	if c.budget == 0 {
		return DefaultRouteCacheBytes
	}
	return c.budget
}

// Used is the number of body bytes currently counted.
func (c *routeCache) Used() int64 { return c.used.Load() }

// body returns the snapshot's cached encoding of r in slot, encoding and
// caching it when the budget allows; over budget it encodes per request.
func (c *routeCache) body(snap *route.TopicSnapshot, slot int, r *route.TopicRouteData, f body.Flavour) []byte {
	if cb, ok := snap.Cached(slot).(*cachedBody); ok {
		return cb.b
	}
	b := encodeRoute(r, f)
	n := int64(len(b))
	if c.used.Add(n) > c.limit() {
		c.used.Add(-n)
		return b
	}
	if !snap.CacheIfEmpty(slot, &cachedBody{b: b, owner: c}) {
		c.used.Add(-n) // another lookup cached it first, or the snapshot was retired
	}
	return b
}

// encodeRoute encodes r into a pooled scratch buffer and returns an
// exact-size copy (appending from nil would leave up to half of the
// capacity unused).
func encodeRoute(r *route.TopicRouteData, f body.Flavour) []byte {
	bp := encodeBufs.Get().(*[]byte)
	buf := body.AppendTopicRouteData((*bp)[:0], r, f)
	out := make([]byte, len(buf))
	copy(out, buf)
	if cap(buf) <= maxPooledBuf {
		*bp = buf
		encodeBufs.Put(bp)
	}
	return out
}

// retireRouteBodies is the route manager's OnRetire hook: it closes the
// cache slots of a replaced or withdrawn snapshot and uncounts what they
// held.
func retireRouteBodies(s *route.TopicSnapshot) {
	for i := range route.CacheSlots {
		if cb, ok := s.RetireCached(i).(*cachedBody); ok {
			cb.owner.used.Add(-int64(len(cb.b)))
		}
	}
}
