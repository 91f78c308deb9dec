//go:build embedded_controller

package controller

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// silentListener accepts connections on every loopback address and never
// answers (a TLS handshake against it waits for its deadline).
func silentListener(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// TestAttackRoleChangeNotificationsBounded: each code-0 election notifies
// every alive member of the set at the address it registered; a stranger
// (ACL off) that heartbeats for its own sets' ids (100,000 entries allowed)
// and elects in turn makes the controller dial as many addresses of its
// choosing at once, each holding a goroutine and a file descriptor for up
// to 3 s, outside the file-descriptor reserve of the remoting listener,
// and one WARN line per failed delivery. 2,000 notifications to silent
// addresses: deliveries in flight and warning lines are now bounded.
func TestAttackRoleChangeNotificationsBounded(t *testing.T) {
	port := silentListener(t)
	logger, lines := testlog.Capture(t, "notify", hclog.Warn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := newNotifier(ctx, logger, newRecordingObserver(), 0)
	n.tls = func() *tls.Config { return &tls.Config{InsecureSkipVerify: true} } //nolint:gosec // test peer
	for i := 0; i < 2000; i++ {
		n.send(fmt.Sprintf("127.0.%d.%d:%d", 1+i/250, 1+i%250, port), roleChangeNotifyEntry{MasterBrokerID: 1, MasterEpoch: 1})
	}
	n.mu.Lock()
	inflight := len(n.inflight)
	n.mu.Unlock()
	n.wait()
	warned := lines.Count("role change notification")
	t.Logf("2000 notifications to silent addresses: %d in flight at once, %d warning lines", inflight, warned)
	require.LessOrEqual(t, inflight, maxNotifyInflight)
	require.LessOrEqual(t, warned, 4)
}
