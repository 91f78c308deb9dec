//go:build embedded_controller

package main

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// TestEmbeddedControllerEnforcesTLS: with tls.server.mode=enforcing,
// the embedded controller's listener, as the NameServer's, closes
// plaintext and serves TLS (startServers hands both the one Manager).
func TestEmbeddedControllerEnforcesTLS(t *testing.T) {
	logger := raftstoretest.TestLogger(t, "namesrv")
	ca := testcerts.NewCA(t, "embedded-ca")
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "server", ca)
	tc := config.DefaultTLS()
	tc.ServerMode, tc.ServerCertPath, tc.ServerKeyPath = config.TLSModeEnforcing, files.Cert, files.Key
	tlsm, err := tlsconf.New(tc, testlog.New(t, "tls"))
	require.NoError(t, err)
	t.Cleanup(tlsm.Close)

	ctlLn := listen(t)
	tr, err := raftstore.NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	cfg := embeddedConfig(t, ctlLn.Addr().String(), string(tr.LocalAddr()))
	srv, err := namesrv.New(cfg, logger, namesrv.WithMetricsListener(listen(t)), namesrv.WithTLS(tlsm))
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Shutdown(context.Background())) })
	stop, err := runController(cfg, srv, logger, controller.WithTLS(tlsm),
		controller.WithListener(ctlLn), controller.WithRaftTransport(tr))
	require.NoError(t, err)
	t.Cleanup(stop)

	secure := &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}
	poll.Until(t, "the controller serves TLS", 15*time.Second, 10*time.Millisecond, poll.True(func() bool {
		return call(ctlLn.Addr().String(), secure, remoting.ControllerGetMetadataInfo)["isLeader"] == "true"
	}))
	require.Nil(t, call(ctlLn.Addr().String(), nil, remoting.ControllerGetMetadataInfo), "the controller refuses plaintext")
	require.Nil(t, call(srv.Addr().String(), nil, remoting.GetBrokerClusterInfo), "the NameServer refuses plaintext")
	require.NotNil(t, call(srv.Addr().String(), secure, remoting.GetBrokerClusterInfo), "the NameServer serves TLS")
}

// call sends one request (TLS when cfg is set) and returns the ext
// fields of a successful answer, nil otherwise.
func call(addr string, cfg *tls.Config, code int32) map[string]string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{TLS: cfg})
	if err != nil {
		return nil
	}
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(code, nil, nil))
	if err != nil || resp.Code != remoting.Success {
		return nil
	}
	if resp.ExtFields == nil {
		return map[string]string{}
	}
	return resp.ExtFields
}
