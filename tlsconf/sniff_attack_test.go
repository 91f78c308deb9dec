package tlsconf

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

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
