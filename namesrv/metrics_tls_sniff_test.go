package namesrv

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
)

// TestAttackTLSSniffCountsAgainstTheCap: on a TLS metrics listener the
// sniff and the handshake happen inside a place of the cap, bounded by
// the header timeout: stalled handshakes (a byte of a ClientHello, then
// nothing), failed ones (plaintext on an enforcing listener, a client
// that does not trust the certificate) and finished ones all give their
// place back, and a probe over a new connection is answered while stalled
// handshakes hold every place.
func TestAttackTLSSniffCountsAgainstTheCap(t *testing.T) {
	f := newTLSFixture(t, config.TLSModeEnforcing)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := startServer(t, func(c *config.NamesrvConfig) {
		c.MetricsExporterType, c.MetricsMaxConnections, c.MetricsReadHeaderTimeoutSeconds = "PROM", 4, 1
	}, WithMetricsListener(ln), WithTLS(f.manager(t)))
	addr := srv.MetricsAddr().String()
	ep := srv.metrics.ep
	for range 12 {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = nc.Close() })
		_, err = nc.Write([]byte{0x16})
		require.NoError(t, err)
	}
	poll.Until(t, "open == 4", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { open, _ := ep.Conns(); return open == 4 }))
	probe := func(cfg *tls.Config) (int, error) {
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}, Timeout: 3 * time.Second}
		resp, err := c.Get("https://" + addr + "/healthz")
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	status, err := probe(f.client())
	require.NoError(t, err, "a probe while stalled handshakes hold every place")
	require.Equal(t, http.StatusOK, status)
	for range 20 {
		_, err = probe(&tls.Config{MinVersion: tls.VersionTLS12}) // does not trust the certificate
		require.Error(t, err)
		_, err = (&http.Client{Timeout: 3 * time.Second}).Get("http://" + addr + "/healthz")
		require.Error(t, err, "plaintext on an enforcing listener")
	}
	poll.Until(t, "every place is given back: the stalled handshakes within the 1 s header timeout, the others at once", 10*time.Second, 10*time.Millisecond, poll.True(func() bool { open, _ := ep.Conns(); return open == 0 }))
	status, err = probe(f.client())
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
}

// TestAttackTLSMetricsSniffStallsDoNotBlockOthers: metrics connections that
// send nothing, or one byte of a ClientHello, do not hold up Accept (the
// sniff runs on the connection's goroutine, not in the accept loop): a
// scrape beside them is served, and the server closes each stalled one
// (the HTTP server's header timeout bounds the sniff and the handshake).
func TestAttackTLSMetricsSniffStallsDoNotBlockOthers(t *testing.T) {
	f := newTLSFixture(t, config.TLSModeEnforcing)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := startServer(t, func(c *config.NamesrvConfig) { c.MetricsExporterType = "PROM" },
		WithMetricsListener(ln), WithTLS(f.manager(t)))
	addr := srv.MetricsAddr().String()
	var stalled []net.Conn
	for i := range 20 {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = nc.Close() })
		if i%2 == 1 {
			_, err = nc.Write([]byte{0x16})
			require.NoError(t, err)
		}
		stalled = append(stalled, nc)
	}
	secure := &http.Client{Transport: &http.Transport{TLSClientConfig: f.client()}, Timeout: 3 * time.Second}
	resp, err := secure.Get("https://" + addr + "/healthz")
	require.NoError(t, err, "a scrape beside stalled connections")
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	for _, nc := range stalled {
		require.NoError(t, nc.SetReadDeadline(time.Now().Add(20*time.Second)))
		_, err := nc.Read(make([]byte, 16))
		var ne net.Error
		require.Error(t, err)
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server never closed a stalled connection")
	}
}
