//go:build embedded_controller

package main

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// TestStandaloneTLS: tls.* keys in the -c file make the controller's
// remoting and metrics listeners enforce TLS; -probe with -Dtls.enable=true
// reaches it, a plaintext call does not.
func TestStandaloneTLS(t *testing.T) {
	ca := testcerts.NewCA(t, "ctl-ca")
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "server", ca)
	logger := raftstoretest.TestLogger(t, "ctl")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	tr, err := raftstore.NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	cfg := loadTestConfig(t, ln.Addr().String(), string(tr.LocalAddr()), "metricsExporterType=PROM",
		"metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort=0", "tls.server.mode=enforcing",
		"tls.server.certPath="+files.Cert, "tls.server.keyPath="+files.Key)
	tlsm, err := loadTLS(cfg.RawProperties(), nil, logger)
	require.NoError(t, err)
	t.Cleanup(tlsm.Close)
	n, err := startNode(cfg, logger, nodeOptions{
		controller: []controller.Option{controller.WithListener(ln), controller.WithRaftTransport(tr), controller.WithTLS(tlsm)},
		metrics:    metrics.EndpointConfig{Wrap: tlsm.Listener},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, n.stop(ctx))
	})

	req := remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil)
	_, err = call(n.ctl.Addr(), req)
	require.Error(t, err, "plaintext is refused")
	probeTLS, err = probeClientTLS(map[string]string{"tls.enable": "true"})
	require.NoError(t, err)
	t.Cleanup(func() { probeTLS = nil })
	resp, err := call(n.ctl.Addr(), req)
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code)

	https := &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}}}
	hr, err := https.Get("https://" + n.ep.Addr().String() + "/healthz")
	require.NoError(t, err)
	_ = hr.Body.Close()
	require.Equal(t, http.StatusOK, hr.StatusCode)
}
