package namesrv

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
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
	// serviceWait is needWaitForService/waitSecondsForService as of start
	// (nil: no wait).
	serviceWait *startupWait
	cache       *route.BodyCache // encoded bodies kept in the snapshots
}

func (p *routeProcessor) getRouteInfo(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	cfg := p.cfg.Load()
	if p.serviceWait.left(p.started) > 0 {
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
	resp.Body = p.routeBody(req, topic, snap, cfg.SupportActingMaster, cfg.OrderMessageEnable)
	return resp, nil
}

// routeBody picks the view and flavour, serving the snapshot's cached
// encoding unless the request needs a per-request variant (order config or
// zone filtering). A snapshot may be shared by many topics, so the order
// config is looked up by the requested topic.
func (p *routeProcessor) routeBody(req *remoting.Command, topic string, snap *route.TopicSnapshot, acting, order bool) []byte {
	r, slot := snap.Route, route.BodyDefault
	if acting && snap.ActingMaster != nil {
		r, slot = snap.ActingMaster, route.BodyActingDefault
	}
	flavour := wire.FastjsonDefault
	if req.Version >= versionStandardJSON || strings.EqualFold(req.ExtFields["acceptStandardJsonOnly"], "true") {
		flavour, slot = wire.Standard, slot+1
	}
	zone, zoned := zoneOf(req)
	var conf string
	if order {
		conf, _ = p.kv.Get(orderTopicNamespace, topic)
	}
	if !zoned && conf == "" {
		return p.cachedBody(snap, slot, r, flavour)
	}
	view := *r
	view.OrderTopicConf = conf
	if zoned {
		view = filterZone(view, zone)
		flavour = wire.FastjsonDefault
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
func filterZone(r wire.TopicRouteData, zone string) wire.TopicRouteData {
	removed := map[string]bool{}
	out := r
	out.BrokerDatas = nil
	out.FilterServerTable = map[string][]string{}
	for _, bd := range r.BrokerDatas {
		if _, hasMaster := bd.BrokerAddrs[wire.MasterID]; hasMaster && !strings.EqualFold(bd.ZoneName, zone) {
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

func addrOfRemoved(bds []wire.BrokerData, removed map[string]bool, addr string) bool {
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

// maxPooledBuf is the largest encode buffer returned to the pool.
const maxPooledBuf = 64 << 10

// encodeBufs recycles the scratch buffers route bodies are encoded into
// before they are copied out at their exact size.
var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// cachedBody returns the snapshot's cached encoding of r in slot, encoding
// it and offering it to the cache when there is none.
func (p *routeProcessor) cachedBody(snap *route.TopicSnapshot, slot route.BodySlot, r *wire.TopicRouteData, f wire.Flavour) []byte {
	if b := p.cache.Get(snap, slot); b != nil {
		return b
	}
	if b := p.cache.Shared(snap, slot); b != nil {
		return b // another topic's equal route: no encoding
	}
	b := encodeRoute(r, f)
	p.cache.Put(snap, slot, b)
	if held := p.cache.Get(snap, slot); held != nil {
		return held // an equal body held for another topic: b is garbage now
	}
	return b
}

// encodeRoute encodes r into a pooled scratch buffer and returns an
// exact-size copy (appending from nil would leave up to half of the
// capacity unused).
func encodeRoute(r *wire.TopicRouteData, f wire.Flavour) []byte {
	bp := encodeBufs.Get().(*[]byte)
	buf := wire.AppendTopicRouteData((*bp)[:0], r, f)
	out := make([]byte, len(buf))
	copy(out, buf)
	if cap(buf) <= maxPooledBuf {
		*bp = buf
		encodeBufs.Put(bp)
	}
	return out
}
