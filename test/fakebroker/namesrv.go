package fakebroker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// ErrClosed is returned by calls on a closed Broker.
var ErrClosed = errors.New("fakebroker: closed")

// ResponseError is a NameServer answer with a code other than SUCCESS.
type ResponseError struct {
	Op     string
	Code   int32
	Remark string
}

// Error names the operation, the code and the remark.
func (e *ResponseError) Error() string {
	return fmt.Sprintf("fakebroker: %s: code %d: %s", e.Op, e.Code, e.Remark)
}

// checkCode turns a non-SUCCESS response into a *ResponseError.
func checkCode(op string, resp *remoting.Command) error {
	if resp.Code != remoting.Success {
		return &ResponseError{Op: op, Code: resp.Code, Remark: resp.Remark}
	}
	return nil
}

// Conn returns the broker's connection to the NameServer at ns, dialing
// it when there is none or the previous one is gone (a Java broker keeps
// one channel per NameServer and reconnects on demand).
func (b *Broker) Conn(ctx context.Context, ns string) (*remoting.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if c := b.clients[ns]; c != nil && !isDone(c) {
		return c, nil
	}
	c, err := b.dial(ctx, ns)
	if err != nil {
		return nil, err
	}
	b.clients[ns] = c
	return c, nil
}

func isDone(c *remoting.Client) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// dial opens a NameServer connection that records pushed requests.
func (b *Broker) dial(ctx context.Context, ns string) (*remoting.Client, error) {
	return remoting.Dial(ctx, ns, remoting.ClientOptions{
		Logger:    b.log.Named("ns"),
		OnRequest: b.onPushed,
		Sign:      b.cfg.Sign,
		TLS:       b.cfg.TLS,
	})
}

// onPushed records a request a NameServer sent over a broker-initiated
// connection and acknowledges it.
func (b *Broker) onPushed(req *remoting.Command) *remoting.Command {
	b.requests.add(req)
	return remoting.NewResponse(req, remoting.Success, "")
}

// Reconnect makes a fresh connection the one used for ns and returns the
// previous one still open (nil if none): the caller decides when it closes,
// e.g. only after re-registering over the new one.
func (b *Broker) Reconnect(ctx context.Context, ns string) (old *remoting.Client, err error) {
	c, err := b.dial(ctx, ns)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		_ = c.Close()
		return nil, ErrClosed
	}
	old = b.clients[ns]
	b.clients[ns] = c
	return old, nil
}

// Disconnect closes the connection to ns, as a crashed broker's socket
// closes; the NameServer then unregisters the broker.
func (b *Broker) Disconnect(ns string) error {
	b.mu.Lock()
	c := b.clients[ns]
	delete(b.clients, ns)
	b.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close()
}

// RegisterRequest builds the REGISTER_BROKER (103) request a Java 5.3
// broker sends (BrokerOuterAPI.registerBrokerAll) for the current topics
// and DataVersion.
func (b *Broker) RegisterRequest() (*remoting.Command, error) {
	b.mu.Lock()
	rb := &wire.RegisterBody{
		DataVersion:      b.dv,
		TopicConfigs:     maps.Clone(b.topics),
		FilterServerList: []string{},
	}
	b.mu.Unlock()
	data, err := wire.EncodeRegisterBody(rb, b.cfg.Version, false)
	if err != nil {
		return nil, err
	}
	ext := b.identity()
	ext["haServerAddr"] = b.HAAddr()
	ext["enableActingMaster"] = strconv.FormatBool(b.cfg.EnableActingMaster)
	ext["compressed"] = "false"
	ext["bodyCrc32"] = strconv.FormatInt(int64(wire.CRC32(data)), 10)
	if b.cfg.HeartbeatTimeoutMillis > 0 {
		ext["heartbeatTimeoutMillis"] = strconv.FormatInt(b.cfg.HeartbeatTimeoutMillis, 10)
	}
	if b.cfg.ZoneName != "" {
		ext["__ZONE_NAME"] = b.cfg.ZoneName
	}
	return b.request(remoting.RegisterBroker, ext, data), nil
}

// identity is the ext fields naming this broker: brokerAddr, brokerId,
// brokerName, clusterName.
func (b *Broker) identity() map[string]string {
	return map[string]string{
		"brokerAddr":  b.addr,
		"brokerId":    strconv.FormatInt(b.cfg.BrokerID, 10),
		"brokerName":  b.cfg.BrokerName,
		"clusterName": b.cfg.ClusterName,
	}
}

// request is remoting.NewRequest with the configured version.
func (b *Broker) request(code int32, ext map[string]string, data []byte) *remoting.Command {
	req := remoting.NewRequest(code, ext, data)
	req.Version = b.cfg.Version
	return req
}

// Register sends REGISTER_BROKER to ns over the broker's connection. The
// response is returned also when its code is not SUCCESS (then err is a
// *ResponseError).
func (b *Broker) Register(ctx context.Context, ns string) (*remoting.Command, error) {
	c, err := b.Conn(ctx, ns)
	if err != nil {
		return nil, err
	}
	return b.RegisterOn(ctx, c)
}

// RegisterOn sends REGISTER_BROKER over c, any connection (several brokers
// may share one).
func (b *Broker) RegisterOn(ctx context.Context, c *remoting.Client) (*remoting.Command, error) {
	req, err := b.RegisterRequest()
	if err != nil {
		return nil, err
	}
	resp, err := c.Invoke(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp, checkCode("register broker", resp)
}

// RegisterAll registers with every configured NameServer.
func (b *Broker) RegisterAll(ctx context.Context) error {
	var errs []error
	for _, ns := range b.cfg.NameServers {
		if _, err := b.Register(ctx, ns); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}

// Unregister sends UNREGISTER_BROKER (104) to ns. SUCCESS means queued:
// the NameServer removes the broker asynchronously.
func (b *Broker) Unregister(ctx context.Context, ns string) error {
	c, err := b.Conn(ctx, ns)
	if err != nil {
		return err
	}
	resp, err := c.Invoke(ctx, b.request(remoting.UnregisterBroker, b.identity(), nil))
	if err != nil {
		return err
	}
	return checkCode("unregister broker", resp)
}

// UnregisterAll unregisters from every configured NameServer.
func (b *Broker) UnregisterAll(ctx context.Context) error {
	var errs []error
	for _, ns := range b.cfg.NameServers {
		if err := b.Unregister(ctx, ns); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}
