package namesrv

import (
	"fmt"
	"strconv"

	"github.com/rmqgo/nameserver/namesrv/body"
	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/remoting"
)

// brokerRoutes is what the broker-facing processors need from the route tables.
type brokerRoutes interface {
	RegisterBroker(req route.RegisterRequest) (route.RegisterResult, error)
	RegisterUnchanged(req route.RegisterRequest) (route.RegisterResult, bool)
	Unregister(req route.UnregisterRequest) bool
	Heartbeat(cluster, addr string)
	QueryDataVersion(cluster, addr string, dv *route.DataVersion) (bool, *route.DataVersion)
}

// kvLister is what registration needs from the KV store.
type kvLister interface {
	List(ns string) (map[string]string, bool)
}

// brokerProcessor answers REGISTER_BROKER, UNREGISTER_BROKER, BROKER_HEARTBEAT
// and QUERY_DATA_VERSION.
type brokerProcessor struct {
	routes brokerRoutes
	kv     kvLister
	cfg    configSource
}

// register answers REGISTER_BROKER. A body byte-identical to the one last
// applied for the broker (same digest, see registerDigest) is not decoded
// when the route tables can prove it would change nothing but liveness;
// the answer is built from current state either way.
func (p *brokerProcessor) register(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	rr, err := decodeRegisterHeader(req)
	if err == nil {
		rr.BodyDigest = registerDigest(req, &rr)
		if c != nil {
			rr.Channel = c
		}
		if res, ok := p.routes.RegisterUnchanged(rr); ok {
			return p.registered(req, res), nil
		}
		err = decodeRegisterBody(req, &rr)
	}
	if err != nil {
		return withHeader(errorResponse(req, err)), nil
	}
	res, err := p.routes.RegisterBroker(rr)
	body.ReleaseRegisterBody(rr.Body) // the route tables keep no reference to the topic table
	if err != nil {
		return withHeader(errorResponse(req, err)), nil
	}
	return p.registered(req, res), nil
}

// registered is the success answer of REGISTER_BROKER
// (RouteInfoManager.registerBroker's RegisterBrokerResult, and the
// ORDER_TOPIC_CONFIG table from DefaultRequestProcessor.registerBroker).
func (p *brokerProcessor) registered(req *remoting.Command, res route.RegisterResult) *remoting.Command {
	resp := withHeader(remoting.NewResponse(req, remoting.Success, ""))
	setIf(resp.ExtFields, "haServerAddr", res.HAServerAddr)
	setIf(resp.ExtFields, "masterAddr", res.MasterAddr)
	if p.cfg.Load().ReturnOrderTopicConfigToBroker {
		if table, ok := p.kv.List(orderTopicNamespace); ok {
			resp.Body = body.AppendKVTable(nil, table)
		}
	}
	return resp
}

// decodeRegister reads a REGISTER_BROKER request (RegisterBrokerRequestHeader
// and its body) with the CRC check first, as Java does.
func decodeRegister(req *remoting.Command) (route.RegisterRequest, error) {
	rr, err := decodeRegisterHeader(req)
	if err == nil {
		err = decodeRegisterBody(req, &rr)
	}
	return rr, err
}

// decodeRegisterHeader reads RegisterBrokerRequestHeader, all but
// bodyCrc32, which decodeRegisterBody checks first.
func decodeRegisterHeader(req *remoting.Command) (route.RegisterRequest, error) {
	h := newHeader(req)
	rr := route.RegisterRequest{
		ClusterName:            h.required("clusterName"),
		BrokerAddr:             h.required("brokerAddr"),
		BrokerName:             h.required("brokerName"),
		HAServerAddr:           h.required("haServerAddr"),
		BrokerID:               h.int64("brokerId", 0, true),
		HeartbeatTimeoutMillis: h.int64("heartbeatTimeoutMillis", 0, false),
		EnableActingMaster:     h.boolPtr("enableActingMaster"),
		ZoneName:               h.str("__ZONE_NAME"),
	}
	h.int64("bodyCrc32", 0, false) // its syntax; decodeRegisterBody checks it
	if err := h.err(); err != nil {
		return rr, err
	}
	if req.Version < 0 {
		return rr, fmt.Errorf("%w: version %d", ErrBadField, req.Version)
	}
	return rr, nil
}

// decodeRegisterBody checks bodyCrc32 and decodes the body into rr.
func decodeRegisterBody(req *remoting.Command, rr *route.RegisterRequest) error {
	h := newHeader(req)
	if crc := h.int64("bodyCrc32", 0, false); crc != 0 && int64(body.CRC32(req.Body)) != crc {
		return ErrCRCMismatch
	}
	if err := h.err(); err != nil {
		return err
	}
	b, err := body.DecodeRegisterBody(req.Body, req.Version, h.bool("compressed"))
	if err != nil {
		return fmt.Errorf("Failed to decode RegisterBrokerBody: %w", err)
	}
	rr.Body = b
	return nil
}

func (p *brokerProcessor) unregister(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	h := newHeader(req)
	ur := route.UnregisterRequest{
		ClusterName: h.required("clusterName"),
		BrokerAddr:  h.required("brokerAddr"),
		BrokerName:  h.required("brokerName"),
		BrokerID:    h.int64("brokerId", 0, true),
	}
	if err := h.err(); err != nil {
		return errorResponse(req, err), nil
	}
	if !p.routes.Unregister(ur) {
		return errorResponse(req, ErrUnregisterQueueFull), nil
	}
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

func (p *brokerProcessor) heartbeat(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	p.routes.Heartbeat(req.ExtFields["clusterName"], req.ExtFields["brokerAddr"])
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

func (p *brokerProcessor) queryDataVersion(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	var dv *route.DataVersion
	if len(req.Body) > 0 {
		v, err := body.DecodeDataVersion(req.Body)
		if err != nil {
			return withHeader(errorResponse(req, err)), nil
		}
		dv = v
	}
	changed, stored := p.routes.QueryDataVersion(req.ExtFields["clusterName"], req.ExtFields["brokerAddr"], dv)
	resp := withHeader(remoting.NewResponse(req, remoting.Success, ""))
	resp.ExtFields["changed"] = strconv.FormatBool(changed)
	if stored != nil {
		resp.Body = body.AppendDataVersion(nil, stored)
	}
	return resp, nil
}

// withHeader gives a response the empty extFields object that Java writes
// for handlers with a response header class.
func withHeader(resp *remoting.Command) *remoting.Command {
	if resp.ExtFields == nil {
		resp.ExtFields = map[string]string{}
	}
	return resp
}

func setIf(m map[string]string, k, v string) {
	if v != "" {
		m[k] = v
	}
}
