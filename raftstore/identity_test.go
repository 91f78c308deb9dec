//go:build embedded_controller

package raftstore

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReopenUnderAnotherIdentityRefused: a data directory written by n0
// is never run as n1 (a remotely changed controllerDLegerSelfId), nor as
// n0 at another Raft address while a node still answers as n0 at the
// stored one (a copy of the directory): Open refuses, naming the writer or
// the old address.
func TestReopenUnderAnotherIdentityRefused(t *testing.T) {
	c := newTCPCluster(t, 2, nil)
	WaitForLeader(t, c.running()...)
	a0, a1 := c.addr("n0"), c.addr("n1")
	c.closeAll()

	swapped := []Peer{{ID: "n0", RaftAddr: a1}, {ID: "n1", RaftAddr: a0}}
	_, err := Open(Config{SelfID: "n1", Peers: swapped, Dir: c.dirs["n0"], BindAddr: a0,
		Logger: c.logger}, &counterFSM{})
	require.ErrorIs(t, err, ErrIdentity)
	require.ErrorContains(t, err, "was written by node \"n0\", not n1")

	copied := t.TempDir()
	require.NoError(t, os.CopyFS(copied, os.DirFS(c.dirs["n0"])))
	n := c.open("n0", nil)
	require.False(t, n.Bootstrapped(), "the right identity still starts")
	moved := []Peer{{ID: "n0", RaftAddr: "127.0.0.1:1"}, {ID: "n1", RaftAddr: a1}}
	_, err = Open(Config{SelfID: "n0", Peers: moved, Dir: copied, BindAddr: "127.0.0.1:0", AdvertiseAddr: "127.0.0.1:1",
		Logger: c.logger}, &counterFSM{})
	require.ErrorIs(t, err, ErrIdentity)
	require.ErrorContains(t, err, "a node answers at "+a0+" as n0")
}

// TestWipedNodeRejoinsWithoutBootstrap: a follower whose data directory
// was wiped must not bootstrap a cluster its peers already form (with no
// vote record it could vote twice in a term): it asks its peers, joins
// without voting, and is caught up by the leader, which still has it in
// its configuration.
func TestWipedNodeRejoinsWithoutBootstrap(t *testing.T) {
	c := newTCPCluster(t, 3, nil)
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(5), applyN(t, leader, 5))
	var wiped string
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 5)
		if p.ID != leader.ID() {
			wiped = p.ID
		}
	}
	term := leader.Stats()["term"]
	t.Logf("cluster term %s", term)
	c.kill(wiped)
	require.NoError(t, os.RemoveAll(c.dirs[wiped]))

	n := c.open(wiped, nil)
	require.False(t, n.Bootstrapped(), "a wiped node must not bootstrap again")
	require.Equal(t, int64(6), applyN(t, leader, 1))
	eventuallyValue(t, c.fsms[wiped], 6)
	require.GreaterOrEqual(t, statUint(t, n, "term"), statUint(t, leader, "term"), "it reaches the cluster's term")
	require.False(t, n.Bootstrapped())
}

func statUint(t *testing.T, n *Node, key string) uint64 {
	v, err := strconv.ParseUint(n.Stats()[key], 10, 64)
	require.NoError(t, err)
	return v
}
