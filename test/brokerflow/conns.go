package brokerflow

import (
	"context"
	"fmt"
	"slices"

	"github.com/rmqgo/nameserver/remoting"
)

// client returns the live connection to addr (a controller or NameServer),
// dialing it if there is none or the last one is gone.
func (b *Broker) client(ctx context.Context, addr string) (*remoting.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.clients[addr]; ok && !isDone(c) {
		return c, nil
	}
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := remoting.Dial(dctx, addr, remoting.ClientOptions{Logger: b.log.Named("client")})
	if err != nil {
		delete(b.clients, addr)
		return nil, err
	}
	b.clients[addr] = c
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

// Invoke sends one request to addr and waits for the reply, within
// CallTimeout and ctx.
func (b *Broker) Invoke(ctx context.Context, addr string, code int32, ext map[string]string, body []byte) (*remoting.Command, error) {
	c, err := b.client(ctx, addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	resp, err := c.Invoke(ctx, remoting.NewRequest(code, ext, body))
	if err != nil {
		return nil, fmt.Errorf("code %d to %s: %w", code, addr, err)
	}
	return resp, nil
}

// CloseConns closes every controller and NameServer connection, which is
// what the servers see of a crashed broker; the listener stays open.
func (b *Broker) CloseConns() {
	b.mu.Lock()
	clients := b.clients
	b.clients = map[string]*remoting.Client{}
	b.leader = ""
	b.mu.Unlock()
	for _, c := range clients {
		_ = c.Close()
	}
}

// Reconnect moves the broker to fresh controller connections: a
// synchronous heartbeat on each new one first, then the old ones close (a
// late close of a stale session must not evict the broker).
func (b *Broker) Reconnect(ctx context.Context) error {
	b.mu.Lock()
	var old []*remoting.Client
	for addr, c := range b.clients {
		if slices.Contains(b.cfg.Controllers, addr) {
			old = append(old, c)
			delete(b.clients, addr)
		}
	}
	b.mu.Unlock()
	err := b.HeartbeatSync(ctx)
	for _, c := range old {
		_ = c.Close()
	}
	return err
}
