//go:build embedded_controller

package raftstore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReopenUnderAnotherIdentityRefused: a data directory written by n0
// is never run as n1 (a remotely changed controllerDLegerSelfId), nor as
// n0 at another Raft address: Open refuses, naming the id, the address and
// the stored cluster configuration.
func TestReopenUnderAnotherIdentityRefused(t *testing.T) {
	c := newTCPCluster(t, 2, nil)
	WaitForLeader(t, c.running()...)
	a0, a1 := c.addr("n0"), c.addr("n1")
	c.closeAll()

	swapped := []Peer{{ID: "n0", RaftAddr: a1}, {ID: "n1", RaftAddr: a0}}
	_, err := Open(Config{SelfID: "n1", Peers: swapped, Dir: c.dirs["n0"], BindAddr: a0,
		Logger: c.logger}, &counterFSM{})
	require.ErrorIs(t, err, ErrIdentity)
	require.ErrorContains(t, err, "self id n1 with raft address "+a0+" is not in the cluster configuration [n0="+a0+", n1="+a1+"]")

	moved := []Peer{{ID: "n0", RaftAddr: "127.0.0.1:1"}, {ID: "n1", RaftAddr: a1}}
	_, err = Open(Config{SelfID: "n0", Peers: moved, Dir: c.dirs["n0"], BindAddr: a0, AdvertiseAddr: "127.0.0.1:1",
		Logger: c.logger}, &counterFSM{})
	require.ErrorIs(t, err, ErrIdentity)
	require.ErrorContains(t, err, "self id n0 with raft address 127.0.0.1:1")

	n := c.open("n0", nil)
	require.False(t, n.Bootstrapped(), "the right identity still starts")
}
