package namesrv

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/big"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
	"github.com/rmqgo/nameserver/tlsconf"
)

// TestRouteLookupsDuringCertificateRotation: clients look a route up over
// TLS, on fresh connections and on one long-lived connection, while the
// server certificate is replaced twice; no lookup fails, and new
// connections see each new serial.
func TestRouteLookupsDuringCertificateRotation(t *testing.T) {
	f := newTLSFixture(t, config.TLSModePermissive)
	dir := filepath.Dir(f.files.Cert)
	m, err := tlsconf.New(f.cfg, testLogger(t), tlsconf.WithReloadInterval(20*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(m.Close)
	srv := startServer(t, func(*config.NamesrvConfig) {}, WithTLS(m))
	b, err := fakebroker.New(fakebroker.Config{Topics: []wire.TopicConfig{fakebroker.Topic("RotateTopic", 4)}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	_, err = b.Register(ctxFor(t), srv.Addr().String())
	require.NoError(t, err)

	var last atomic.Pointer[big.Int]
	cfg := f.client()
	cfg.VerifyConnection = func(cs tls.ConnectionState) error { last.Store(cs.PeerCertificates[0].SerialNumber); return nil }
	long, err := remoting.Dial(ctxFor(t), srv.Addr().String(), remoting.ClientOptions{TLS: f.client()})
	require.NoError(t, err)
	defer long.Close()

	ctx, stop := context.WithCancel(context.Background())
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				count(lookupOn(t, nil, srv.Addr().String(), cfg), &ok, &failed, t)
				count(lookupOn(t, long, "", nil), &ok, &failed, t)
			}
		})
	}
	poll.Until(t, "ok.Load() >= 50", 30*time.Second, 10*time.Millisecond, poll.True(func() bool { return ok.Load() >= 50 }))
	for range 2 {
		next := f.ca.Issue(t, testcerts.LeafOptions{})
		next.WriteFiles(t, dir, "server", f.ca)
		poll.Until(t, "new connections to see the new serial", 10*time.Second, 10*time.Millisecond, func() error {
			if s := last.Load(); s == nil || s.Cmp(next.Cert.SerialNumber) != 0 {
				return fmt.Errorf("new connections see serial %v, not %s", s, next.Cert.SerialNumber)
			}
			return nil
		})
	}
	target := ok.Load() + 50
	poll.Until(t, "ok.Load() >= target", 30*time.Second, 10*time.Millisecond, poll.True(func() bool { return ok.Load() >= target }))
	stop()
	wg.Wait()
	t.Logf("route lookups ok=%d failed=%d reloads=%d failed reloads=%d", ok.Load(), failed.Load(), m.Reloads(), m.ReloadFailures())
	require.Zero(t, failed.Load())
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// lookupOn asks for RotateTopic's route on c, or on a fresh TLS
// connection to addr when c is nil.
func lookupOn(t *testing.T, c *remoting.Client, addr string, cfg *tls.Config) error {
	if c == nil {
		var err error
		if c, err = remoting.Dial(ctxFor(t), addr, remoting.ClientOptions{TLS: cfg}); err != nil {
			return err
		}
		defer c.Close()
	}
	resp, err := c.Invoke(ctxFor(t), remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "RotateTopic"}, nil))
	if err == nil && resp.Code != remoting.Success {
		err = fmt.Errorf("route lookup answered %d: %s", resp.Code, resp.Remark)
	}
	return err
}

func count(err error, ok, failed *atomic.Int64, t *testing.T) {
	if err != nil {
		failed.Add(1)
		t.Errorf("route lookup failed during rotation: %v", err)
		return
	}
	ok.Add(1)
}
