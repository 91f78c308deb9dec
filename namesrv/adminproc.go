package namesrv

import (
	"strconv"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// adminRoutes is what adminProcessor needs from the route tables.
type adminRoutes interface {
	ClusterInfo() wire.ClusterInfo
	AllTopics() wire.TopicList
	TopicsByCluster(cluster string) wire.TopicList
	SystemTopics() wire.TopicList
	UnitTopics() wire.TopicList
	HasUnitSubTopics() wire.TopicList
	HasUnitSubUnUnitTopics() wire.TopicList
	WipeWritePerm(brokerName string) int
	AddWritePerm(brokerName string) int
	DeleteTopic(topic, cluster string)
	RegisterTopic(topic string, queueDatas []wire.QueueData)
	BrokerMemberGroup(cluster, brokerName string) wire.BrokerMemberGroup
}

// adminProcessor answers the cluster, topic-list, permission and topic
// administration codes.
type adminProcessor struct {
	routes adminRoutes
	cfg    configSource
}

func (p *adminProcessor) clusterInfo(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	ci := p.routes.ClusterInfo()
	return bodyResponse(req, wire.AppendClusterInfo(nil, &ci)), nil
}

func (p *adminProcessor) wipeWritePerm(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	n := p.routes.WipeWritePerm(req.ExtFields["brokerName"])
	return countResponse(req, "wipeTopicCount", n), nil
}

func (p *adminProcessor) addWritePerm(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	n := p.routes.AddWritePerm(req.ExtFields["brokerName"])
	return countResponse(req, "addTopicCount", n), nil
}

func (p *adminProcessor) allTopics(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if !p.cfg.Load().EnableAllTopicList {
		return errorResponse(req, ErrDisabled), nil
	}
	return topicListResponse(req, p.routes.AllTopics()), nil
}

func (p *adminProcessor) topicsByCluster(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if !p.cfg.Load().EnableTopicList {
		return errorResponse(req, ErrDisabled), nil
	}
	return topicListResponse(req, p.routes.TopicsByCluster(req.ExtFields["cluster"])), nil
}

func (p *adminProcessor) systemTopics(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	return topicListResponse(req, p.routes.SystemTopics()), nil
}

// unitList serves one of the unit topic lists (311, 312, 313), gated by
// enableTopicList.
func (p *adminProcessor) unitList(list func() wire.TopicList) remoting.HandlerFunc {
	return func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		if !p.cfg.Load().EnableTopicList {
			return errorResponse(req, ErrDisabled), nil
		}
		return topicListResponse(req, list()), nil
	}
}

func (p *adminProcessor) deleteTopic(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	p.routes.DeleteTopic(req.ExtFields["topic"], req.ExtFields["clusterName"])
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

func (p *adminProcessor) registerTopic(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if len(req.Body) > 0 {
		rd, err := wire.DecodeTopicRouteData(req.Body)
		if err != nil {
			return errorResponse(req, err), nil
		}
		if len(rd.QueueDatas) > 0 {
			p.routes.RegisterTopic(req.ExtFields["topic"], rd.QueueDatas)
		}
	}
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

// memberGroup answers GET_BROKER_MEMBER_GROUP. Java leaves the remark of its
// fallback response in place ("not set any response code") on SUCCESS; we
// keep it for byte compatibility.
func (p *adminProcessor) memberGroup(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	g := p.routes.BrokerMemberGroup(req.ExtFields["clusterName"], req.ExtFields["brokerName"])
	resp := remoting.NewResponse(req, remoting.Success, "not set any response code")
	resp.Body = wire.AppendBrokerMemberGroup(nil, &g)
	return resp, nil
}

func topicListResponse(req *remoting.Command, tl wire.TopicList) *remoting.Command {
	return bodyResponse(req, wire.AppendTopicList(nil, &tl))
}

func bodyResponse(req *remoting.Command, b []byte) *remoting.Command {
	resp := remoting.NewResponse(req, remoting.Success, "")
	resp.Body = b
	return resp
}

func countResponse(req *remoting.Command, key string, n int) *remoting.Command {
	resp := withHeader(remoting.NewResponse(req, remoting.Success, ""))
	resp.ExtFields[key] = strconv.Itoa(n)
	return resp
}
