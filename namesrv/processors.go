package namesrv

import (
	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/remoting"
)

// registerProcessors binds every NameServer request code to its handler.
func (s *Server) registerProcessors() {
	rp := &routeProcessor{routes: s.routes, kv: s.kv, cfg: s.cfg, started: s.started,
		serviceWait: s.serviceWait, cache: route.NewBodyCache(0)}
	bp := &brokerProcessor{routes: s.routes, kv: s.kv, cfg: s.cfg}
	ap := &adminProcessor{routes: s.routes, cfg: s.cfg}
	kp := &kvProcessor{kv: s.kv}
	cp := &configProcessor{cfg: s.cfg}
	handlers := map[int32]remoting.HandlerFunc{
		remoting.PutKVConfig:                   kp.put,
		remoting.GetKVConfig:                   kp.get,
		remoting.DeleteKVConfig:                kp.delete,
		remoting.GetKVListByNamespace:          kp.list,
		remoting.RegisterBroker:                bp.registerOn(s.lane),
		remoting.UnregisterBroker:              bp.unregister,
		remoting.BrokerHeartbeat:               bp.heartbeat,
		remoting.QueryDataVersion:              bp.queryDataVersion,
		remoting.GetBrokerClusterInfo:          ap.clusterInfo,
		remoting.WipeWritePermOfBroker:         ap.wipeWritePerm,
		remoting.AddWritePermOfBroker:          ap.addWritePerm,
		remoting.GetAllTopicListFromNameserver: ap.allTopics,
		remoting.DeleteTopicInNamesrv:          ap.deleteTopic,
		remoting.RegisterTopicInNamesrv:        ap.registerTopic,
		remoting.GetTopicsByCluster:            ap.topicsByCluster,
		remoting.GetSystemTopicListFromNs:      ap.systemTopics,
		remoting.GetUnitTopicList:              ap.unitList(s.routes.UnitTopics),
		remoting.GetHasUnitSubTopicList:        ap.unitList(s.routes.HasUnitSubTopics),
		remoting.GetHasUnitSubUnunitTopicList:  ap.unitList(s.routes.HasUnitSubUnUnitTopics),
		remoting.GetBrokerMemberGroup:          ap.memberGroup,
		remoting.UpdateNamesrvConfig:           cp.update,
		remoting.GetNamesrvConfig:              cp.get,
	}
	for code, h := range handlers {
		s.rs.Register(code, h)
	}
	s.warm.register(s.rs, rp.getRouteInfo) // GET_ROUTEINFO_BY_TOPIC (warmup.go)
}
