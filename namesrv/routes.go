package namesrv

import (
	"fmt"
	"strings"
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
