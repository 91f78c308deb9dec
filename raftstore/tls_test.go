//go:build embedded_controller

package raftstore

import (
	"crypto/tls"
	"fmt"
	"math/big"
	"net"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/certreload"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
)

const tlsWait = 10 * time.Second

// tlsMember is one node's TLS material and stream layer.
type tlsMember struct {
	files  testcerts.Files
	rl     *certreload.Reloader
	layer  *TLSStreamLayer
	trans  *raft.NetworkTransport
	dir    string
	prefix string
}

// newTLSMember issues a leaf of ca into fresh files trusting trust and
// binds a TLS transport on loopback.
func newTLSMember(t *testing.T, ca, trust *testcerts.CA, opts testcerts.LeafOptions, name string) *tlsMember {
	m := &tlsMember{dir: t.TempDir(), prefix: name}
	m.files = ca.Issue(t, opts).WriteFiles(t, m.dir, name, trust)
	logger := testLogger(t, name)
	var err error
	m.rl, err = certreload.New(m.files.Cert, m.files.Key, m.files.CA, logger)
	require.NoError(t, err)
	m.rl.SetCheckInterval(0)
	m.layer, err = NewTLSStreamLayer("127.0.0.1:0", "", m.rl.ServerConfig(), m.rl.ClientConfig(), Inbound{}, logger)
	require.NoError(t, err)
	m.trans = m.layer.Transport(logger)
	return m
}

// newTLSCluster opens an n-node cluster whose transports use mutual TLS
// with leaves of ca.
func newTLSCluster(t *testing.T, ca *testcerts.CA, n int) (*tcpCluster, map[string]*tlsMember) {
	c := &tcpCluster{t: t, logger: testLogger(t, "tls"), dirs: map[string]string{},
		fsms: map[string]*counterFSM{}, nodes: map[string]*Node{}}
	t.Cleanup(c.closeAll)
	members := map[string]*tlsMember{}
	for i := range n {
		id := fmt.Sprintf("n%d", i)
		members[id] = newTLSMember(t, ca, ca, testcerts.LeafOptions{CommonName: id}, id)
		c.peers = append(c.peers, Peer{ID: id, RaftAddr: string(members[id].trans.LocalAddr())})
		c.dirs[id] = t.TempDir()
	}
	for _, p := range c.peers {
		c.open(p.ID, members[p.ID].trans)
	}
	return c, members
}

func TestTLSClusterElectsAndReplicates(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	c, members := newTLSCluster(t, ca, 3)
	leader := waitServing(t, c.running())
	require.Equal(t, int64(6), applyN(t, leader, 5))
	for _, f := range c.fsms {
		eventuallyValue(t, f, 6)
	}
	for id, m := range members {
		ok, failed := m.layer.Handshakes()
		t.Logf("%s: inbound handshakes ok=%d failed=%d", id, ok, failed)
		require.Zero(t, failed, id)
	}
}

// requestVote asks peer for its vote in term as a would-be candidate.
func requestVote(trans raft.Transport, peer Peer, term uint64) error {
	req := &raft.RequestVoteRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax,
		ID: []byte("stranger"), Addr: []byte("127.0.0.1:1")}, Term: term, LastLogIndex: 1 << 40, LastLogTerm: term}
	var resp raft.RequestVoteResponse
	return trans.RequestVote(raft.ServerID(peer.ID), raft.ServerAddress(peer.RaftAddr), req, &resp)
}

// requireStrangerRefused: every RPC of trans to the cluster fails, every
// member counts a refused handshake, and the leader and its term stay.
func requireStrangerRefused(t *testing.T, c *tcpCluster, members map[string]*tlsMember, trans raft.Transport) {
	leader := waitServing(t, c.running())
	term := leader.Raft().CurrentTerm()
	for _, p := range c.peers {
		require.Error(t, requestVote(trans, p, term+10), p.ID)
		require.False(t, probePeer(trans, p).ok, p.ID)
	}
	for id, m := range members {
		require.Eventually(t, func() bool { _, failed := m.layer.Handshakes(); return failed > 0 },
			tlsWait, 10*time.Millisecond, "%s counted no refused handshake", id)
		require.NotZero(t, m.rl.Refused(), id)
	}
	require.Equal(t, term, leader.Raft().CurrentTerm(), "the stranger moved the term")
	require.True(t, leader.IsLeader())
	applyN(t, leader, 1)
}

func TestTLSStrangerCannotJoinOrVote(t *testing.T) {
	ca, other := testcerts.NewCA(t, "raft-ca"), testcerts.NewCA(t, "other-ca")
	c, members := newTLSCluster(t, ca, 3)
	// The stranger trusts the cluster's CA: only the members refuse.
	stranger := newTLSMember(t, other, ca, testcerts.LeafOptions{}, "stranger")
	t.Cleanup(func() { _ = stranger.trans.Close() })
	waitServing(t, c.running())
	requireStrangerRefused(t, c, members, stranger.trans)
}

func TestTLSExpiredPeerRefused(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	c, members := newTLSCluster(t, ca, 3)
	old := newTLSMember(t, ca, ca, testcerts.LeafOptions{NotAfter: time.Now().Add(2 * time.Second)}, "old")
	t.Cleanup(func() { _ = old.trans.Close() })
	require.Eventually(t, func() bool { return time.Now().After(old.rl.Certificate().Leaf.NotAfter) },
		tlsWait, 50*time.Millisecond)
	waitServing(t, c.running())
	requireStrangerRefused(t, c, members, old.trans)
}

// serialOfServer dials addr with a leaf of ca and returns the serial of
// the certificate the server presented.
func serialOfServer(t *testing.T, addr string, client tls.Certificate) *big.Int {
	conn, err := tls.Dial("tcp", addr, &tls.Config{Certificates: []tls.Certificate{client},
		InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}) //nolint:gosec // the test reads the serial only
	require.NoError(t, err)
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber
}

// clientSerials listens with TLS and reports the serial of every client
// certificate presented to it.
func clientSerials(t *testing.T, server tls.Certificate) (string, <-chan *big.Int) {
	seen := make(chan *big.Int, 16)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{server},
		ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS12,
		VerifyConnection: func(cs tls.ConnectionState) error {
			seen <- cs.PeerCertificates[0].SerialNumber
			return nil
		}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			_ = c.Close()
		}
	}()
	return ln.Addr().String(), seen
}

func TestTLSCertificateRotation(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	c, members := newTLSCluster(t, ca, 3)
	leader := waitServing(t, c.running())
	term := leader.Raft().CurrentTerm()
	probe := ca.Issue(t, testcerts.LeafOptions{}).TLS(t)
	n0 := members["n0"]
	require.Equal(t, n0.rl.Certificate().Leaf.SerialNumber, serialOfServer(t, c.addr("n0"), probe))

	next := ca.Issue(t, testcerts.LeafOptions{CommonName: "n0"})
	next.WriteFiles(t, n0.dir, n0.prefix, ca)
	require.Eventually(t, func() bool {
		return serialOfServer(t, c.addr("n0"), probe).Cmp(next.Cert.SerialNumber) == 0
	}, tlsWait, 10*time.Millisecond, "n0 never served the new certificate")

	addr, seen := clientSerials(t, probe)
	require.False(t, probePeer(n0.trans, Peer{ID: "x", RaftAddr: addr}).ok)
	require.Equal(t, next.Cert.SerialNumber, <-seen, "n0 dialled with its old certificate")

	applyN(t, leader, 3)
	for _, f := range c.fsms {
		eventuallyValue(t, f, 4)
	}
	require.Equal(t, term, leader.Raft().CurrentTerm())
	require.True(t, leader.IsLeader())
	require.EqualValues(t, 1, n0.rl.Reloads())
}

func TestTLSPlaintextPeerFailsCleanly(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	c, members := newTLSCluster(t, ca, 3)
	plain, err := NewTCPTransport("127.0.0.1:0", "", testLogger(t, "plain"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = plain.Close() })
	leader := waitServing(t, c.running())
	for _, p := range c.peers {
		require.Error(t, requestVote(plain, p, leader.Raft().CurrentTerm()+10), p.ID)
		// And the other way: a TLS node dialling a plaintext one.
		require.False(t, probePeer(members[p.ID].trans, Peer{ID: "plain", RaftAddr: string(plain.LocalAddr())}).ok)
	}
	for id, m := range members {
		require.Eventually(t, func() bool { _, failed := m.layer.Handshakes(); return failed > 0 },
			tlsWait, 10*time.Millisecond, "%s counted no failed handshake", id)
	}
	require.True(t, leader.IsLeader())
	applyN(t, leader, 1)
}

func TestTLSStalledPeerDoesNotBlockAccept(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	m := newTLSMember(t, ca, ca, testcerts.LeafOptions{}, "n0")
	t.Cleanup(func() { _ = m.trans.Close() })
	m.layer.SetHandshakeTimeout(300 * time.Millisecond)
	stalled, err := net.Dial("tcp", string(m.trans.LocalAddr()))
	require.NoError(t, err)
	defer stalled.Close()

	// Another peer handshakes while the stalled one sends nothing.
	probe := ca.Issue(t, testcerts.LeafOptions{}).TLS(t)
	require.Equal(t, m.rl.Certificate().Leaf.SerialNumber, serialOfServer(t, string(m.trans.LocalAddr()), probe))
	require.Eventually(t, func() bool { _, failed := m.layer.Handshakes(); return failed == 1 },
		tlsWait, 10*time.Millisecond, "the stalled handshake never timed out")
	require.NoError(t, stalled.SetReadDeadline(time.Now().Add(tlsWait)))
	_, err = stalled.Read(make([]byte, 1))
	require.Error(t, err, "the stalled connection is still open")
}

// TestTLSWipedNodeRejoins: the join probe and the vote guard work over
// TLS: a wiped node asks its peers, joins without bootstrapping and is
// caught up.
func TestTLSWipedNodeRejoins(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	c, members := newTLSCluster(t, ca, 3)
	leader := waitServing(t, c.running())
	wiped := c.peers[0].ID
	if wiped == leader.ID() {
		wiped = c.peers[1].ID
	}
	c.kill(wiped)
	require.NoError(t, os.RemoveAll(c.dirs[wiped]))
	m := members[wiped]
	var err error
	require.Eventually(t, func() bool {
		m.layer, err = NewTLSStreamLayer(c.addr(wiped), "", m.rl.ServerConfig(), m.rl.ClientConfig(), Inbound{}, c.logger)
		return err == nil
	}, tlsWait, 10*time.Millisecond, "rebind %s: %v", wiped, err)

	n := c.open(wiped, m.layer.Transport(c.logger.Named(wiped)))
	// Whichever node leads now: on a loaded machine the first leader may
	// lose its lease to the remaining follower.
	serving := waitServing(t, c.running())
	eventuallyValue(t, c.fsms[wiped], c.fsms[serving.ID()].Value())
	require.False(t, n.Bootstrapped(), "a wiped node must not bootstrap again")
	// Joined through the probe; it votes again at the next vote request.
	require.Contains(t, []string{"catching-up", "voting"}, n.Stats()["vote_guard"])
}

// TestOutboundHandshakeFailureLeftToThePeerLog: a dial whose
// handshake the peer refuses wrote a warning per attempt (one per
// heartbeat to that peer); the error, naming the handshake, now reaches
// raft's RPC, whose outage the peer error log writes once.
func TestOutboundHandshakeFailureLeftToThePeerLog(t *testing.T) {
	ca, other := testcerts.NewCA(t, "raft-ca"), testcerts.NewCA(t, "other-ca")
	peer := newTLSMember(t, other, other, testcerts.LeafOptions{}, "peer")
	t.Cleanup(func() { _ = peer.trans.Close() })
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "self", ca)
	rl, err := certreload.New(files.Cert, files.Key, files.CA, testLogger(t, "rl"))
	require.NoError(t, err)
	logger, logs := testlog.Capture(t, "self", hclog.Info)
	self, err := NewTLSStreamLayer("127.0.0.1:0", "", rl.ServerConfig(), rl.ClientConfig(), Inbound{}, logger)
	require.NoError(t, err)
	t.Cleanup(func() { _ = self.Close() })
	const n = 30
	for range n {
		_, err = self.Dial(raft.ServerAddress(peer.layer.Addr().String()), time.Second)
		require.Error(t, err)
	}
	t.Logf("%d refused dials: %d lines at info and above; %v", n, logs.Count("tls handshake failed"), err)
	require.Zero(t, logs.Count("tls handshake failed"), logs.String())
	require.ErrorContains(t, err, "tls handshake failed")
}
