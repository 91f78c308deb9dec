package tlsconf

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
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

// TestAttackSniffConfusion: in permissive mode a connection that starts
// like TLS (0x16) and goes on in plaintext is closed, not served as
// plaintext; in enforcing mode a plaintext frame whose length starts with
// 0x16 is not served either; a ClientHello sent one byte per segment is
// served. Other clients are served throughout.
func TestAttackSniffConfusion(t *testing.T) {
	p := newPKI(t)
	for _, mode := range []string{config.TLSModePermissive, config.TLSModeEnforcing} {
		t.Run(mode, func(t *testing.T) {
			addr := startEcho(t, newManager(t, p.serverTLS(mode)))
			frame := echoFrame(t)
			for _, first := range [][]byte{append([]byte{tlsHandshakeByte}, frame...), bigLengthFrame(frame)} {
				nc, err := net.Dial("tcp", addr)
				require.NoError(t, err)
				_, err = nc.Write(first)
				require.NoError(t, err)
				require.NoError(t, nc.SetReadDeadline(time.Now().Add(10*time.Second)))
				got, err := io.ReadAll(nc)
				if err != nil { // a reset is a close too; a timeout is not
					requireClosed(t, err, first[:8])
				}
				if len(got) > 0 {
					require.EqualValues(t, 0x15, got[0], "only a TLS alert, never a frame: %x", got)
				}
				_ = nc.Close()
			}
			raw, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer raw.Close()
			cc := trusting(p.ca)
			cc.ServerName = "localhost"
			tc := tls.Client(&trickleConn{Conn: raw}, cc)
			require.NoError(t, tc.HandshakeContext(ctxT(t)), "a ClientHello in 1-byte segments")
			_, err = tc.Write(frame)
			require.NoError(t, err)
			require.NoError(t, tc.SetReadDeadline(time.Now().Add(10*time.Second)))
			var n [4]byte
			_, err = io.ReadFull(tc, n[:])
			require.NoError(t, err, "the echo answer")
		})
	}
}

// echoFrame is an encoded echo request (Java's RemotingCommand.encode).
func echoFrame(t *testing.T) []byte {
	t.Helper()
	return remoting.EncodeFrame(nil, remoting.NewRequest(echoCode, nil, nil))
}

// bigLengthFrame is frame with its length's high byte set to 0x16 (a
// frame of 352 MiB and more, as the sniff sees it: a ClientHello).
func bigLengthFrame(frame []byte) []byte {
	out := append([]byte(nil), frame...)
	binary.BigEndian.PutUint32(out, 0x16000000|binary.BigEndian.Uint32(out))
	return out
}

// trickleConn writes one byte per segment.
type trickleConn struct{ net.Conn }

func (c *trickleConn) Write(p []byte) (int, error) {
	for i := range p {
		if _, err := c.Conn.Write(p[i : i+1]); err != nil {
			return i, err
		}
	}
	return len(p), nil
}

// TestAttackShutdownDuringHandshakes: connections stuck in their sniff or
// handshake do not hold up Shutdown until the handshake timeout.
func TestAttackShutdownDuringHandshakes(t *testing.T) {
	p := newPKI(t)
	m := newManager(t, p.serverTLS(config.TLSModeEnforcing))
	s := remoting.NewServer(remoting.ServerConfig{Logger: testLogger(t), ConnHooks: m.ConnHooks(),
		HandshakeTimeout: time.Minute})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = s.Serve(ln) }()
	for i := range 10 {
		nc, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { _ = nc.Close() })
		if i%2 == 1 {
			_, err = nc.Write([]byte{tlsHandshakeByte, 3, 1})
			require.NoError(t, err)
		}
	}
	// The handshake timeout is a minute: a Shutdown that waited for the
	// stalled handshakes would end with its context's error.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, s.Shutdown(ctx))
}
