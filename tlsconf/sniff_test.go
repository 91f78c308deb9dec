package tlsconf

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
)

// TestModesAgainstPlainAndTLSClients: Java's HandshakeHandler table. disabled
// closes TLS, permissive serves both on one port, enforcing closes
// plaintext.
func TestModesAgainstPlainAndTLSClients(t *testing.T) {
	p := newPKI(t)
	for _, tc := range []struct {
		mode          string
		plain, secure bool
	}{
		{config.TLSModeDisabled, true, false},
		{config.TLSModePermissive, true, true},
		{config.TLSModeEnforcing, false, true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			addr := startEcho(t, newManager(t, p.serverTLS(tc.mode)))
			requireServed(t, tc.plain, echo(t, addr, nil), "plaintext")
			requireServed(t, tc.secure, echo(t, addr, trusting(p.ca)), "tls")
		})
	}
}

func requireServed(t *testing.T, want bool, err error, what string) {
	t.Helper()
	if want {
		require.NoError(t, err, what)
		return
	}
	require.Error(t, err, what)
}

// TestPermissiveWithoutCertificateIsPlaintextOnly: the default settings
// (permissive, no certificate, test mode off) serve plaintext and close a
// ClientHello.
func TestPermissiveWithoutCertificateIsPlaintextOnly(t *testing.T) {
	m := newManager(t, config.DefaultTLS())
	require.False(t, m.ServesTLS())
	require.Nil(t, m.ConnHooks(), "a plaintext-only server runs no hook")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	require.Same(t, ln, m.Listener(ln))
	addr := startEcho(t, m)
	require.NoError(t, echo(t, addr, nil))
	require.Error(t, echo(t, addr, trusting(newPKI(t).ca)))
}

// TestTestModeServesSelfSigned: tls.test.mode.enable generates a
// certificate; a client trusting any server (Java's test-mode client, and
// rocketmq-client-go) talks to it, one verifying the chain does not.
func TestTestModeServesSelfSigned(t *testing.T) {
	c := config.DefaultTLS()
	c.TestModeEnable, c.Enable, c.ServerMode = true, true, config.TLSModeEnforcing
	m := newManager(t, c)
	require.True(t, m.ServesTLS())
	addr := startEcho(t, m)
	require.NoError(t, echo(t, addr, m.Client()))
	require.Error(t, echo(t, addr, trusting(newPKI(t).ca)))
	require.Error(t, echo(t, addr, nil))
}

// TestSniffStallsAndGarbage: one byte of a ClientHello then silence is
// closed at the handshake timeout; an HTTP request on an enforcing port
// is closed at once.
func TestSniffStallsAndGarbage(t *testing.T) {
	p := newPKI(t)
	addr := startEcho(t, newManager(t, p.serverTLS(config.TLSModeEnforcing)))
	for _, first := range [][]byte{{tlsHandshakeByte}, []byte("GET / HTTP/1.1\r\n\r\n"), {0, 0, 0, 4}} {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = nc.Write(first)
		require.NoError(t, err)
		require.NoError(t, nc.SetReadDeadline(time.Now().Add(10*time.Second)))
		_, err = nc.Read(make([]byte, 64))
		requireClosed(t, err, first)
		_ = nc.Close()
	}
	require.NoError(t, echo(t, addr, trusting(p.ca)), "the server still serves")
}

func TestTLSVersionsAreTwelveAndThirteenOnly(t *testing.T) {
	p := newPKI(t)
	addr := startEcho(t, newManager(t, p.serverTLS(config.TLSModeEnforcing)))
	old := trusting(p.ca)
	old.MinVersion, old.MaxVersion = 0x0301, 0x0302 // TLS 1.0, 1.1
	require.Error(t, echo(t, addr, old))
	for _, v := range []uint16{0x0303, 0x0304} {
		c := trusting(p.ca)
		c.MinVersion, c.MaxVersion = v, v
		require.NoError(t, echo(t, addr, c), "version %x", v)
	}
}

// requireClosed: the server closed (EOF, or a reset when it left bytes
// unread), rather than our read timing out.
func requireClosed(t *testing.T, err error, first []byte) {
	t.Helper()
	require.Error(t, err, "%q", first)
	var ne net.Error
	if errors.As(err, &ne) {
		require.False(t, ne.Timeout(), "%q: the server did not close", first)
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		require.ErrorIs(t, err, io.EOF, "%q", first)
	}
}
