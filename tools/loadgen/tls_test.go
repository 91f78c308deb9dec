package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// TestBenchPKIServesEnforcingListener: the generated certificate (either
// key type) loads into tlsconf, a TLS lookup client verifies it, and a
// plaintext one is closed by the enforcing listener, so the tls rows
// really measure TLS.
func TestBenchPKIServesEnforcingListener(t *testing.T) {
	for _, kind := range []string{keyECDSA, keyRSA} {
		t.Run(kind, func(t *testing.T) {
			pki, err := newBenchPKI(t.TempDir(), kind)
			require.NoError(t, err)
			addr := startHookedServer(t, pki)
			c, err := dialLookupWith(pki.dialTLS(), addr, 1)
			require.NoError(t, err)
			defer c.nc.Close()
			require.NoError(t, c.roundTrip("BenchTopic-000001"))
			p, err := dialLookup(addr, 1)
			require.NoError(t, err)
			defer p.nc.Close()
			require.Error(t, p.roundTrip("BenchTopic-000001"))
		})
	}
}

// startHookedServer serves canned lookups behind an enforcing tlsconf
// hook with pki's certificate and returns its address.
func startHookedServer(t *testing.T, pki *benchPKI) string {
	log := testlog.New(t, "server")
	tc := config.DefaultTLS()
	tc.ServerMode, tc.ServerCertPath, tc.ServerKeyPath = config.TLSModeEnforcing, pki.certPath, pki.keyPath
	m, err := tlsconf.New(tc, log)
	require.NoError(t, err)
	t.Cleanup(m.Close)
	srv := remoting.NewServer(remoting.ServerConfig{Logger: log, ConnHooks: m.ConnHooks()})
	srv.Register(remoting.GetRouteinfoByTopic, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		resp := remoting.NewResponse(req, remoting.Success, "")
		resp.Body = []byte("{}")
		return resp, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return ln.Addr().String()
}

// TestTLSSmoke runs the tls workload briefly end to end: three NameServer
// children, TLS registration on the enforcing one, both phases, ratios.
func TestTLSSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the NameServer")
	}
	var out bytes.Buffer
	code := run([]string{"-workload", "tls", "-duration", "600ms", "-warmup", "100ms",
		"-rounds", "2", "-conns", "2", "-tls-reconnect-every", "2", "-json"}, &out, testWriter{t})
	require.Equal(t, 0, code)
	var rep report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	r := rep.TLS
	require.NotNil(t, r)
	require.Contains(t, r.Handshake, "TLS 1.3")
	for _, phase := range [][]tlsRun{r.Steady, r.Reconnect} {
		require.Len(t, phase, 3)
		for _, run := range phase {
			require.Positive(t, run.Latency.Count, run.Server)
			require.Len(t, run.RoundRates, 2, run.Server)
			require.Positive(t, run.PeakRSSMB, run.Server)
		}
	}
	require.Len(t, r.Ratios, 4)
	require.Equal(t, "reconnect: tls/plain", r.Ratios[2].Name)
}

// TestCompareRatios: per-round rate ratios, their median, and pooled
// latency/CPU ratios of a over b.
func TestCompareRatios(t *testing.T) {
	a := tlsRun{RoundRates: []float64{50, 90, 60}}
	b := tlsRun{RoundRates: []float64{100, 100, 100}}
	a.Latency.P50US, b.Latency.P50US = 30, 10
	a.CPUPerReq, b.CPUPerReq = 6, 0
	q := compare("x", a, b)
	require.Equal(t, []float64{0.5, 0.9, 0.6}, q.RoundRates)
	require.InDelta(t, 0.6, q.MedianRate, 1e-9)
	require.InDelta(t, 3, q.P50, 1e-9)
	require.Zero(t, q.CPUPerUnit) // b unmeasured
	require.InDelta(t, 2.5, median([]float64{4, 1, 3, 2}), 1e-9)
}
