package namesrv

import (
	"fmt"
	"strconv"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// brokerRoutes is what the broker-facing processors need from the route tables.
type brokerRoutes interface {
	RegisterBroker(req wire.RegisterRequest) (wire.RegisterResult, error)
	RegisterIfUnchanged(req wire.RegisterRequest) (wire.RegisterResult, bool)
	Unregister(req wire.UnregisterRequest) bool
	Heartbeat(cluster, addr string)
	QueryDataVersion(cluster, addr string, dv *wire.DataVersion) (bool, *wire.DataVersion)
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

// registerOn is the REGISTER_BROKER handler. The header is decoded and the
// body digested on the connection's reader; a body byte-identical to the
// one last applied for the broker (same digest, see registerDigest) that
// the route tables prove would change nothing but liveness is answered
// there, without the lane. Anything else (a body to decode, a header that
// does not decode) goes to the lane l, as one request at a time.
//
// The answer is the lane's: RegisterIfUnchanged is one step under the route
// tables' coordinator wherever it runs, and the lane tries it again before
// it decodes (the state may have changed meanwhile); a panic becomes the
// lane's error. Only the order against registrations of other connections
// differs, which no connection can see: one connection's requests are
// still handled one at a time, in order.
func (p *brokerProcessor) registerOn(l *lane) remoting.HandlerFunc {
	return func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		var rr wire.RegisterRequest
		var headerErr error
		resp, err := l.call(c, req, func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
			rr, headerErr = prepareRegister(c, req)
			if headerErr != nil {
				return nil, nil
			}
			return p.unchanged(req, rr), nil
		})
		if resp != nil || err != nil {
			return resp, err
		}
		return l.do(c, req, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
			if headerErr != nil {
				return withHeader(errorResponse(req, headerErr)), nil
			}
			return p.register(req, rr), nil
		})
	}
}

// route notes the addresses a connection registered until its Done
// closes (a registration arriving after that is not noted).
var _ interface{ Done() <-chan struct{} } = (*remoting.Conn)(nil)

// prepareRegister decodes the header of a REGISTER_BROKER and digests its
// body (the body is not decoded).
func prepareRegister(c *remoting.Conn, req *remoting.Command) (wire.RegisterRequest, error) {
	rr, err := decodeRegisterHeader(req)
	if err != nil {
		return rr, err
	}
	rr.BodyDigest = registerDigest(req, &rr)
	if c != nil {
		rr.Channel = c
	}
	return rr, nil
}

// unchanged answers a REGISTER_BROKER prepared as rr when RegisterIfUnchanged
// applies it without the body, otherwise it returns nil.
func (p *brokerProcessor) unchanged(req *remoting.Command, rr wire.RegisterRequest) *remoting.Command {
	res, ok := p.routes.RegisterIfUnchanged(rr)
	if !ok {
		return nil
	}
	return p.registered(req, res)
}

// register answers a REGISTER_BROKER prepared as rr: without decoding the
// body when RegisterIfUnchanged applies it, otherwise in full; the answer is
// built from current state either way.
func (p *brokerProcessor) register(req *remoting.Command, rr wire.RegisterRequest) *remoting.Command {
	if resp := p.unchanged(req, rr); resp != nil {
		return resp
	}
	if err := decodeRegisterBody(req, &rr); err != nil {
		return withHeader(errorResponse(req, err))
	}
	res, err := p.routes.RegisterBroker(rr)
	wire.ReleaseRegisterBody(rr.Body) // the route tables keep no reference to the topic table
	if err != nil {
		return withHeader(errorResponse(req, err))
	}
	return p.registered(req, res)
}

// registered is the success answer of REGISTER_BROKER
// (RouteInfoManager.registerBroker's RegisterBrokerResult, and the
// ORDER_TOPIC_CONFIG table from DefaultRequestProcessor.registerBroker).
func (p *brokerProcessor) registered(req *remoting.Command, res wire.RegisterResult) *remoting.Command {
	resp := withHeader(remoting.NewResponse(req, remoting.Success, ""))
	setIf(resp.ExtFields, "haServerAddr", res.HAServerAddr)
	setIf(resp.ExtFields, "masterAddr", res.MasterAddr)
	if p.cfg.Load().ReturnOrderTopicConfigToBroker {
		if table, ok := p.kv.List(orderTopicNamespace); ok {
			resp.Body = wire.AppendKVTable(nil, table)
		}
	}
	return resp
}

// decodeRegister reads a REGISTER_BROKER request (RegisterBrokerRequestHeader
// and its body) with the CRC check first, as Java does.
func decodeRegister(req *remoting.Command) (wire.RegisterRequest, error) {
	rr, err := decodeRegisterHeader(req)
	if err == nil {
		err = decodeRegisterBody(req, &rr)
	}
	return rr, err
}

// decodeRegisterHeader reads RegisterBrokerRequestHeader, all but
// bodyCrc32, which decodeRegisterBody checks first.
func decodeRegisterHeader(req *remoting.Command) (wire.RegisterRequest, error) {
	h := newHeader(req)
	rr := wire.RegisterRequest{
		ClusterName:            h.required("clusterName"),
		BrokerAddr:             h.required("brokerAddr"),
		BrokerName:             h.required("brokerName"),
		HAServerAddr:           h.required("haServerAddr"),
		BrokerID:               h.int64("brokerId", 0, true),
		HeartbeatTimeoutMillis: heartbeatTimeout(h),
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

// heartbeatTimeout reads heartbeatTimeoutMillis: 0 when absent (the
// default), wire.HeartbeatTimeoutNone for a value of 0 or below, which
// Java keeps (the broker expires at the next scan).
func heartbeatTimeout(h *header) int64 {
	if _, ok := h.ext["heartbeatTimeoutMillis"]; !ok {
		return 0
	}
	if ms := h.int64("heartbeatTimeoutMillis", 0, false); ms > 0 {
		return ms
	}
	return wire.HeartbeatTimeoutNone
}

// decodeRegisterBody checks bodyCrc32 and decodes the body into rr.
func decodeRegisterBody(req *remoting.Command, rr *wire.RegisterRequest) error {
	h := newHeader(req)
	if crc := h.int64("bodyCrc32", 0, false); crc != 0 && int64(wire.CRC32(req.Body)) != crc {
		return ErrCRCMismatch
	}
	if err := h.err(); err != nil {
		return err
	}
	b, err := wire.DecodeRegisterBody(req.Body, req.Version, h.bool("compressed"))
	if err != nil {
		//lint:ignore ST1005 Java's remark text, sent to the broker as is
		return fmt.Errorf("Failed to decode RegisterBrokerBody: %w", err)
	}
	rr.Body = b
	return nil
}

func (p *brokerProcessor) unregister(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	h := newHeader(req)
	ur := wire.UnregisterRequest{
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

// queryDataVersion is QUERY_DATA_VERSION. Without a body, with null, or
// with one that sets no timestamp (which Java stamps with the time it
// decodes it), the broker's version is one the name server cannot hold:
// changed is true.
func (p *brokerProcessor) queryDataVersion(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	var dv *wire.DataVersion
	if len(req.Body) > 0 {
		v, stamped, err := wire.DecodeDataVersionStamp(req.Body)
		if err != nil {
			return withHeader(errorResponse(req, err)), nil
		}
		if stamped {
			dv = v
		}
	}
	changed, stored := p.routes.QueryDataVersion(req.ExtFields["clusterName"], req.ExtFields["brokerAddr"], dv)
	resp := withHeader(remoting.NewResponse(req, remoting.Success, ""))
	resp.ExtFields["changed"] = strconv.FormatBool(changed)
	if stored != nil {
		resp.Body = wire.AppendDataVersion(nil, stored)
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
