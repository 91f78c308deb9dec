package fakebroker

import (
	"maps"
	"strings"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Admin codes a broker answers (RequestCode).
const (
	DeleteTopicInBroker  int32 = 215 // DELETE_TOPIC_IN_BROKER
	GetBrokerRuntimeInfo int32 = 28  // GET_BROKER_RUNTIME_INFO
	invalidParameter     int32 = 29  // ResponseCode.INVALID_PARAMETER
)

// registerAdminHandlers binds the admin codes mqadmin sends to a broker.
func (b *Broker) registerAdminHandlers() {
	b.srv.Register(DeleteTopicInBroker, b.handleDeleteTopic)
	b.srv.Register(GetBrokerRuntimeInfo, b.handleRuntimeInfo)
}

// handleDeleteTopic is AdminBrokerProcessor.deleteTopic: a blank topic is
// INVALID_PARAMETER, otherwise the topic is dropped (absent or not) and
// the answer is SUCCESS. Like Java's, it does not tell the NameServers:
// the broker's next registration no longer lists the topic.
func (b *Broker) handleDeleteTopic(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	b.requests.add(req)
	topic := strings.TrimSpace(req.ExtFields["topic"])
	if topic == "" {
		return remoting.NewResponse(req, invalidParameter, "The specified topic is blank."), nil
	}
	if _, ok := b.TopicConfigs()[topic]; ok {
		b.RemoveTopic(topic)
	}
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

// handleRuntimeInfo is AdminBrokerProcessor.getBrokerRuntimeInfo: a
// KVTable body ({"table":{...}}) of Config.RuntimeInfo. A broker without
// RuntimeInfo answers REQUEST_CODE_NOT_SUPPORTED.
func (b *Broker) handleRuntimeInfo(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	info := b.RuntimeInfo()
	if info == nil {
		return b.handleOther(c, req)
	}
	b.requests.add(req)
	resp := remoting.NewResponse(req, remoting.Success, "")
	resp.Body = wire.AppendKVTable(nil, info)
	return resp, nil
}

// RuntimeInfo returns a copy of the runtime figures the broker reports.
func (b *Broker) RuntimeInfo() map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.cfg.RuntimeInfo)
}

// SetRuntimeInfo replaces the runtime figures the broker reports (nil:
// GET_BROKER_RUNTIME_INFO is not supported).
func (b *Broker) SetRuntimeInfo(info map[string]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cfg.RuntimeInfo = maps.Clone(info)
}
