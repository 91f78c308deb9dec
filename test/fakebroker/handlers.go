package fakebroker

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/remoting"
)

// registerHandlers binds the codes the broker answers on its own port.
func (b *Broker) registerHandlers() {
	b.srv.Register(SendMessage, b.handleSend)
	b.srv.Register(SendMessageV2, b.handleSend)
	b.srv.Register(SendBatchMessage, b.handleSend)
	b.srv.Register(HeartBeat, b.handleAck)
	b.srv.Register(UnregisterClient, b.handleAck)
	b.srv.Register(remoting.NotifyMinBrokerIDChange, b.handleAck)
	b.registerAdminHandlers()
	b.srv.SetDefaultHandler(b.handleOther)
}

// handleAck records the request and answers SUCCESS with no body (nothing
// for a oneway request).
func (b *Broker) handleAck(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	b.requests.add(req)
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

// handleOther records the request and answers REQUEST_CODE_NOT_SUPPORTED,
// as a broker without that processor does.
func (b *Broker) handleOther(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	b.requests.add(req)
	return remoting.NewResponse(req, remoting.RequestCodeNotSupported,
		" request type "+strconv.Itoa(int(req.Code))+" not supported"), nil
}

// handleSend stores the message(s) of SEND_MESSAGE, SEND_MESSAGE_V2 or
// SEND_BATCH_MESSAGE and answers with a SendMessageResponseHeader.
func (b *Broker) handleSend(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	msgs, err := b.decodeSend(req)
	if err != nil {
		b.log.Warn("bad send request", "code", req.Code, "error", err)
		return remoting.NewResponse(req, remoting.SystemError, err.Error()), nil
	}
	first, ids := b.store(msgs)
	resp := remoting.NewResponse(req, remoting.Success, "")
	resp.SetExt("msgId", strings.Join(ids, ","))
	resp.SetExt("queueId", strconv.Itoa(int(msgs[0].QueueID)))
	resp.SetExt("queueOffset", strconv.FormatInt(first, 10))
	resp.SetExt("MSG_REGION", "DefaultRegion")
	resp.SetExt("TRACE_ON", "true")
	return resp, nil
}

// decodeSend turns a send request into the messages it carries.
func (b *Broker) decodeSend(req *remoting.Command) ([]Message, error) {
	h, err := parseSendHeader(req)
	if err != nil {
		return nil, err
	}
	base := Message{
		Code: req.Code, ProducerGroup: h.group, Topic: h.topic,
		QueueID: h.queueID, SysFlag: h.sysFlag, Flag: h.flag,
	}
	if req.Code == SendBatchMessage {
		return batchMessages(base, req.Body)
	}
	base.Properties = decodeProperties(h.props)
	base.Body = req.Body
	if h.sysFlag&compressedFlag != 0 {
		if base.Body, err = inflate(req.Body); err != nil {
			return nil, err
		}
	}
	return []Message{base}, nil
}

// batchMessages decodes a batch body; each message gets base's header
// fields and its own flag, body and properties.
func batchMessages(base Message, data []byte) ([]Message, error) {
	entries, err := decodeBatch(data)
	if err != nil {
		return nil, err
	}
	msgs := make([]Message, len(entries))
	for i, e := range entries {
		m := base
		m.Flag, m.Body, m.Properties = e.Flag, e.Body, e.Properties
		msgs[i] = m
	}
	if len(msgs) == 0 {
		return nil, errMissingBody
	}
	return msgs, nil
}

// errMissingBody answers a batch without messages.
var errMissingBody = errors.New("empty batch")

// Requests returns every request recorded so far, in arrival order: all
// requests on the broker's port except sends (see Messages), and requests a
// NameServer pushed over the broker's NameServer connections.
func (b *Broker) Requests() []*remoting.Command { return b.requests.snapshot() }

// WaitRequest returns the first recorded request with the given code,
// waiting until ctx ends.
func (b *Broker) WaitRequest(ctx context.Context, code int32) (*remoting.Command, error) {
	return b.requests.wait(ctx, func(c *remoting.Command) bool { return c.Code == code })
}

// RequestCount returns how many recorded requests have the given code.
func (b *Broker) RequestCount(code int32) int {
	return b.requests.count(func(c *remoting.Command) bool { return c.Code == code })
}
