//go:build embedded_controller

package controller

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testcerts"
)

// TestNewRefusesBadRaftTLSFiles: a bad controllerRaftTls* file stops the
// node at New, naming the key and the file, before anything listens.
func TestNewRefusesBadRaftTLSFiles(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n0", ca)
	bad := filepath.Join(t.TempDir(), "n0.crt")
	require.NoError(t, os.WriteFile(bad, []byte("-----BEGIN CERTIFICATE-----\nnot base64\n"), 0o600))
	_, peers := listenPeers(t, []string{"n0"})
	cfg := testControllerConfig(t, "n0", peers, "n0-"+freeRaftAddr(t), "controllerRaftTlsEnable=true",
		"controllerRaftTlsCertPath="+bad, "controllerRaftTlsKeyPath="+f.Key, "controllerRaftTlsTrustCertPath="+f.CA)
	_, err := New(cfg, nil)
	require.ErrorContains(t, err, "controllerRaftTlsCertPath ("+bad+")")
	t.Log(err)
}

// TestRaftTransportUsesTLSWhenEnabled: the transport bound from the keys
// answers a TLS client with the configured certificate.
func TestRaftTransportUsesTLSWhenEnabled(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	leaf := ca.Issue(t, testcerts.LeafOptions{})
	f := leaf.WriteFiles(t, t.TempDir(), "n0", ca)
	_, peers := listenPeers(t, []string{"n0"})
	var tr raft.Transport
	require.Eventually(t, func() bool { // a port free a moment ago may be taken
		cfg := testControllerConfig(t, "n0", peers, "n0-"+freeRaftAddr(t), "controllerRaftTlsEnable=true",
			"controllerRaftTlsCertPath="+f.Cert, "controllerRaftTlsKeyPath="+f.Key, "controllerRaftTlsTrustCertPath="+f.CA)
		var err error
		tr, err = newRaftTransport(cfg, testLogger(t))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	defer tr.(raft.WithClose).Close()
	client := ca.Issue(t, testcerts.LeafOptions{}).TLS(t)
	conn, err := tls.Dial("tcp", string(tr.LocalAddr()), &tls.Config{Certificates: []tls.Certificate{client},
		RootCAs: ca.Pool(), ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
	require.NoError(t, err)
	defer conn.Close()
	require.Equal(t, leaf.Cert.SerialNumber, conn.ConnectionState().PeerCertificates[0].SerialNumber)
}

// freeRaftAddr returns a loopback address that was free a moment ago.
func freeRaftAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// TestRaftTransportCapsInboundConnections: the transport bound from the
// keys, plain or TLS, closes an inbound connection over
// controllerRaftMaxInboundConnections at once and keeps the others.
func TestRaftTransportCapsInboundConnections(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n0", ca)
	for name, extra := range map[string][]string{"plain": nil, "tls": {"controllerRaftTlsEnable=true",
		"controllerRaftTlsCertPath=" + f.Cert, "controllerRaftTlsKeyPath=" + f.Key, "controllerRaftTlsTrustCertPath=" + f.CA}} {
		t.Run(name, func(t *testing.T) {
			_, peers := listenPeers(t, []string{"n0"})
			var tr raft.Transport
			require.Eventually(t, func() bool { // a port free a moment ago may be taken
				cfg := testControllerConfig(t, "n0", peers, "n0-"+freeRaftAddr(t),
					append([]string{"controllerRaftMaxInboundConnections=16"}, extra...)...)
				var err error
				tr, err = newRaftTransport(cfg, testLogger(t))
				return err == nil
			}, 10*time.Second, 10*time.Millisecond)
			defer tr.(raft.WithClose).Close()
			var held []net.Conn
			for range 17 {
				c, err := net.Dial("tcp", string(tr.LocalAddr()))
				require.NoError(t, err)
				defer c.Close()
				held = append(held, c)
			}
			deadline := time.Now().Add(300 * time.Millisecond) // one wait for all
			closed := func(c net.Conn) bool {
				require.NoError(t, c.SetReadDeadline(deadline))
				_, err := c.Read(make([]byte, 1))
				return errors.Is(err, io.EOF)
			}
			require.True(t, closed(held[0]), "the 17th connection takes the place of the oldest silent one")
			for i, c := range held[1:] {
				require.False(t, closed(c), "connection %d within the cap stays open", i+1)
			}
		})
	}
}
