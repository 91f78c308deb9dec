package certreload

import (
	"crypto/tls"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
)

const waitLimit = 10 * time.Second

func TestReloadOnChangeKeepsOldOnFailure(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	dir := t.TempDir()
	first := ca.Issue(t, testcerts.LeafOptions{})
	f := first.WriteFiles(t, dir, "n0", ca)
	r, err := New(f.Cert, f.Key, f.CA, testlog.New(t, "certreload"))
	require.NoError(t, err)
	r.SetCheckInterval(0)

	// A half-done rotation (new certificate, old key) keeps the old pair.
	second := ca.Issue(t, testcerts.LeafOptions{})
	require.NoError(t, writeReplace(f.Cert, second.CertPEM))
	r.MaybeReload()
	require.Equal(t, first.Cert.SerialNumber, r.Certificate().Leaf.SerialNumber)
	require.Zero(t, r.Reloads())

	second.WriteFiles(t, dir, "n0", ca)
	r.MaybeReload()
	require.Equal(t, second.Cert.SerialNumber, r.Certificate().Leaf.SerialNumber)
	require.EqualValues(t, 1, r.Reloads())
	r.MaybeReload() // unchanged files: no reload
	require.EqualValues(t, 1, r.Reloads())
}

func writeReplace(path string, data []byte) error {
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// handshake runs a TLS handshake over loopback TCP between a server and
// a client config and returns the server's and the client's errors.
func handshake(t *testing.T, srv, cli *tls.Config) (error, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		s := tls.Server(c, srv)
		done <- s.Handshake()
		_ = s.Close()
	}()
	c, cerr := tls.Dial("tcp", ln.Addr().String(), cli)
	if cerr == nil {
		_ = c.Close()
	}
	return <-done, cerr
}

// newReloader serves a leaf signed by ca and trusts trust (ca when nil).
func newReloader(t *testing.T, ca, trust *testcerts.CA, opts testcerts.LeafOptions) *Reloader {
	if trust == nil {
		trust = ca
	}
	f := ca.Issue(t, opts).WriteFiles(t, t.TempDir(), "n", trust)
	r, err := New(f.Cert, f.Key, f.CA, testlog.New(t, "certreload"))
	require.NoError(t, err)
	return r
}

func TestMutualTLSBetweenPeersOfOneCA(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	a, b := newReloader(t, ca, nil, testcerts.LeafOptions{}), newReloader(t, ca, nil, testcerts.LeafOptions{})
	serr, cerr := handshake(t, a.ServerConfig(), b.ClientConfig())
	require.NoError(t, serr)
	require.NoError(t, cerr)
}

func TestStrangerRefusedBothWays(t *testing.T) {
	ca, other := testcerts.NewCA(t, "raft-ca"), testcerts.NewCA(t, "other-ca")
	// The stranger trusts the members' CA, so only the members refuse.
	member, stranger := newReloader(t, ca, nil, testcerts.LeafOptions{}), newReloader(t, other, ca, testcerts.LeafOptions{})
	serr, _ := handshake(t, member.ServerConfig(), stranger.ClientConfig())
	require.ErrorIs(t, serr, ErrUntrustedPeer)
	_, cerr := handshake(t, stranger.ServerConfig(), member.ClientConfig())
	require.ErrorIs(t, cerr, ErrUntrustedPeer)
	require.EqualValues(t, 2, member.Refused())
}

func TestExpiredPeerRefused(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	member := newReloader(t, ca, nil, testcerts.LeafOptions{})
	old := newReloader(t, ca, nil, testcerts.LeafOptions{NotAfter: time.Now().Add(2 * time.Second)})
	poll.Until(t, "time.Now().After(old.Certificate().Leaf.NotAfter)", waitLimit, 50*time.Millisecond, poll.True(func() bool { return time.Now().After(old.Certificate().Leaf.NotAfter) }))
	serr, _ := handshake(t, member.ServerConfig(), old.ClientConfig())
	require.ErrorIs(t, serr, ErrUntrustedPeer)
	require.ErrorContains(t, serr, "expired")
}

func TestTLSVersionsOnly12And13(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	a, b := newReloader(t, ca, nil, testcerts.LeafOptions{}), newReloader(t, ca, nil, testcerts.LeafOptions{})
	cli := b.ClientConfig()
	cli.MaxVersion = tls.VersionTLS11
	serr, cerr := handshake(t, a.ServerConfig(), cli)
	require.Error(t, serr)
	require.Error(t, cerr)
}

// TestTrustReloadAdmitsNewCA: appending a second CA to the trust file
// admits its peers at the next handshake (a CA rotation's first step).
func TestTrustReloadAdmitsNewCA(t *testing.T) {
	ca, next := testcerts.NewCA(t, "raft-ca"), testcerts.NewCA(t, "raft-ca-2")
	dir := t.TempDir()
	f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, dir, "n0", ca)
	member, err := New(f.Cert, f.Key, f.CA, testlog.New(t, "member"))
	require.NoError(t, err)
	member.SetCheckInterval(0)
	newcomer := newReloader(t, next, ca, testcerts.LeafOptions{})
	serr, _ := handshake(t, member.ServerConfig(), newcomer.ClientConfig())
	require.ErrorIs(t, serr, ErrUntrustedPeer)

	require.NoError(t, writeReplace(f.CA, append(append([]byte{}, ca.PEM...), next.PEM...)))
	serr, cerr := handshake(t, member.ServerConfig(), newcomer.ClientConfig())
	require.NoError(t, serr)
	require.NoError(t, cerr)
	require.EqualValues(t, 1, member.Reloads())
}
