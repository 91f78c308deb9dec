//go:build embedded_controller

package controller

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

func tlsManager(t *testing.T, c *config.TLS) *tlsconf.Manager {
	m, err := tlsconf.New(c, raftstoretest.TestLogger(t, "tls"))
	require.NoError(t, err)
	t.Cleanup(m.Close)
	return m
}

// TestNotifierDialsTLSBroker: with tls.enable, 1008 reaches a broker whose
// listener enforces TLS.
func TestNotifierDialsTLSBroker(t *testing.T) {
	ca := testcerts.NewCA(t, "broker-ca")
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "broker", ca)
	bc := config.DefaultTLS()
	bc.ServerMode, bc.ServerCertPath, bc.ServerKeyPath = config.TLSModeEnforcing, files.Cert, files.Key
	got := make(chan *remoting.Command, 1)
	srv := remoting.NewServer(remoting.ServerConfig{ConnHooks: []remoting.ConnHook{tlsManager(t, bc).Hook()}})
	srv.Register(remoting.NotifyBrokerRoleChanged, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		got <- req
		return nil, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	cc := config.DefaultTLS()
	cc.Enable, cc.ClientAuthServer, cc.ClientTrustCertPath = true, true, files.CA
	n := newNotifier(context.Background(), raftstoretest.TestLogger(t, "notify"), newRecordingObserver(), 0)
	n.tls = tlsManager(t, cc).Client
	n.send(ln.Addr().String(), roleChangeNotifyEntry{MasterBrokerID: 1, MasterEpoch: 1})
	select {
	case req := <-got:
		require.Equal(t, "1", req.ExtFields["masterEpoch"])
	case <-time.After(10 * time.Second):
		t.Fatal("no 1008 received over tls")
	}
	n.wait()
}
