//go:build embedded_controller

package controllertest

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/certreload"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
)

// startTLSCluster starts one controller per leaf signer in signers, each
// with controllerRaftTlsEnable=true, a leaf of its signer and trust as
// the trusted CA. Each Raft transport is bound on port 0 first from the
// node's files, as the controller binds it from its keys (that path:
// controller's TestRaftTransportUsesTLSWhenEnabled), so no port races.
func startTLSCluster(t *testing.T, trust *testcerts.CA, signers ...*testcerts.CA) *cluster {
	c := &cluster{t: t, logger: raftstoretest.TestLogger(t, "cluster")}
	lns := make([]net.Listener, len(signers))
	trans := make([]raft.Transport, len(signers))
	files := make([]testcerts.Files, len(signers))
	var peers, raftPeers []string
	for i, signer := range signers {
		id := fmt.Sprintf("n%d", i)
		files[i] = signer.Issue(t, testcerts.LeafOptions{CommonName: id}).WriteFiles(t, t.TempDir(), id, trust)
		lns[i], trans[i] = listenTLS(t, files[i], c.logger.Named(id))
		nd := &node{id: id, remoting: lns[i].Addr().String(), raft: string(trans[i].LocalAddr())}
		c.nodes = append(c.nodes, nd)
		peers = append(peers, nd.id+"-"+nd.remoting)
		raftPeers = append(raftPeers, nd.id+"-"+nd.raft)
	}
	dir := t.TempDir()
	for i, nd := range c.nodes {
		f := files[i]
		props := append([]string{"controllerRaftTlsEnable=true", "controllerRaftTlsCertPath=" + f.Cert,
			"controllerRaftTlsKeyPath=" + f.Key, "controllerRaftTlsTrustCertPath=" + f.CA}, fastProps...)
		nd.path = writeProps(t, filepath.Join(dir, nd.id), nd.id, strings.Join(peers, ";"),
			strings.Join(raftPeers, ";"), props)
		c.start(nd, lns[i], trans[i])
	}
	t.Cleanup(c.stopAll)
	return c
}

// listenTLS binds a remoting listener and a mutual-TLS Raft transport
// serving files, both on loopback port 0.
func listenTLS(t *testing.T, f testcerts.Files, logger hclog.Logger) (net.Listener, raft.Transport) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rl, err := certreload.New(f.Cert, f.Key, f.CA, logger)
	require.NoError(t, err)
	tr, err := raftstore.NewTLSTransport("127.0.0.1:0", "", rl.ServerConfig(), rl.ClientConfig(), raftstore.Inbound{}, logger)
	require.NoError(t, err)
	return ln, tr
}

// TestRaftTLSClusterReplicates: three controllers whose Raft transport
// uses mutual TLS elect a leader, and a broker's election (Java frames,
// see fakeBroker) reaches every node's state.
func TestRaftTLSClusterReplicates(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	c := startTLSCluster(t, ca, ca, ca, ca)
	newPair(t, c.addrs(), 3*time.Second)
	for _, nd := range c.nodes {
		require.Eventually(t, func() bool { return nd.ctl.MasterEpochs()["broker-a"] == 1 },
			waitLimit, 10*time.Millisecond, "%s never applied the election", nd.id)
	}
}

// TestRaftTLSStrangerCannotJoin: a controller whose certificate another
// CA signed is refused by both peers; they elect a leader and serve
// without it, and it neither leads nor receives their log.
func TestRaftTLSStrangerCannotJoin(t *testing.T) {
	ca, other := testcerts.NewCA(t, "raft-ca"), testcerts.NewCA(t, "other-ca")
	c := startTLSCluster(t, ca, ca, ca, other)
	stranger := c.nodes[2]
	newPair(t, c.addrs()[:2], 3*time.Second)
	for _, nd := range c.nodes[:2] {
		require.Eventually(t, func() bool { return nd.ctl.MasterEpochs()["broker-a"] == 1 },
			waitLimit, 10*time.Millisecond, "%s never applied the election", nd.id)
	}
	leader := c.leader()
	require.NotEqual(t, stranger, leader)
	stats := stranger.ctl.RaftStats()
	t.Logf("stranger: %v", stats)
	require.Equal(t, "undecided", stats["vote_guard"], "the stranger decided to bootstrap or join")
	require.Empty(t, stranger.ctl.MasterEpochs())
	require.Equal(t, "0", stats["last_log_index"])
}
