package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// testCtx is a context bounded for one test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startNS starts a NameServer on a loopback port and returns its address.
func startNS(t *testing.T) string {
	t.Helper()
	return namesrvtest.Start(t).Addr().String()
}

// startNSs starts n NameServers.
func startNSs(t *testing.T, n int) []string {
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = startNS(t)
	}
	return addrs
}

// startBroker starts a fake broker and registers it with nss.
func startBroker(t *testing.T, cfg fakebroker.Config, nss ...string) *fakebroker.Broker {
	t.Helper()
	cfg.NameServers = nss
	b, err := fakebroker.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	require.NoError(t, b.RegisterAll(testCtx(t)))
	return b
}

// registerAs registers b with ns but advertising addr, over a connection
// the test keeps open (so the NameServer keeps the registration).
func registerAs(t *testing.T, b *fakebroker.Broker, ns, addr string) {
	t.Helper()
	ctx := testCtx(t)
	c, err := remoting.Dial(ctx, ns, remoting.ClientOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	req, err := b.RegisterRequest()
	require.NoError(t, err)
	req.ExtFields["brokerAddr"] = addr
	resp, err := c.Invoke(ctx, req)
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// silentAddr is a loopback address that accepts connections and never
// answers.
func silentAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

// result is one mqadmin run.
type result struct {
	code        int
	out, errOut string
}

// mqadmin runs the command line in process.
func mqadmin(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(testCtx(t), args, &out, &errOut)
	return result{code: code, out: out.String(), errOut: errOut.String()}
}

// requireOK checks a zero exit status and returns stdout.
func requireOK(t *testing.T, r result) string {
	t.Helper()
	require.Equal(t, exitOK, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	return r.out
}

// nsList joins addresses as -n takes them.
func nsList(addrs ...string) string { return strings.Join(addrs, ";") }

// topicBroker is a fake broker config holding the given topics.
func topicBroker(name string, topics ...fakebroker.TopicConfig) fakebroker.Config {
	return fakebroker.Config{BrokerName: name, Topics: topics}
}
