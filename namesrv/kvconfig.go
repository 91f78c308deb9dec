package namesrv

import (
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// kvStore is what the KV processors need from the KV store.
type kvStore interface {
	Put(ns, key, value string) error
	Delete(ns, key string) error
	EnsureNamespace(ns string) error
	Get(ns, key string) (string, bool)
	List(ns string) (map[string]string, bool)
}

// kvProcessor answers PUT/GET/DELETE_KV_CONFIG and GET_KVLIST_BY_NAMESPACE.
// A write answers only after the store made it durable.
type kvProcessor struct {
	kv kvStore
}

func (p *kvProcessor) put(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	ns, okNS := req.ExtFields["namespace"]
	key, okKey := req.ExtFields["key"]
	if !okNS || !okKey {
		return errorResponse(req, ErrNullKey), nil
	}
	value, okValue := req.ExtFields["value"]
	var err error
	if okValue {
		err = p.kv.Put(ns, key, value)
	} else {
		// Java stores a null value: the namespace exists, the key reads as absent.
		if err = p.kv.EnsureNamespace(ns); err == nil {
			err = p.kv.Delete(ns, key)
		}
	}
	if err != nil {
		return errorResponse(req, err), nil
	}
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

func (p *kvProcessor) get(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	ns, key := req.ExtFields["namespace"], req.ExtFields["key"]
	value, ok := p.kv.Get(ns, key)
	if !ok {
		return withHeader(remoting.NewResponse(req, remoting.QueryNotFound,
			"No config item, Namespace: "+ns+" Key: "+key)), nil
	}
	resp := withHeader(remoting.NewResponse(req, remoting.Success, ""))
	resp.ExtFields["value"] = value
	return resp, nil
}

func (p *kvProcessor) delete(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if err := p.kv.Delete(req.ExtFields["namespace"], req.ExtFields["key"]); err != nil {
		return errorResponse(req, err), nil
	}
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

func (p *kvProcessor) list(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	ns := req.ExtFields["namespace"]
	table, ok := p.kv.List(ns)
	if !ok {
		return remoting.NewResponse(req, remoting.QueryNotFound, "No config item, Namespace: "+ns), nil
	}
	return bodyResponse(req, wire.AppendKVTable(nil, table)), nil
}
