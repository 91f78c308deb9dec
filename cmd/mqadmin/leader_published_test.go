package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// From a host that reaches the controllers through published ports, the
// leader's advertised name (n0:9878 inside its compose network) does not
// resolve: getSyncStateSet sends to the -a address whose node says it is
// the leader.
func TestLeaderReachedAtPublishedAddress(t *testing.T) {
	t.Parallel()
	follower, leader := newFakeController(t), newFakeController(t)
	leader.mu.Lock()
	leader.advertised = "n0.invalid:9878"
	leader.mu.Unlock()
	follower.setLeader("n0.invalid:9878")
	requireOK(t, mqadmin(t, "getSyncStateSet", "-a", nsList(follower.addr, leader.addr), "-b", "broker-a"))
	require.Len(t, leader.received(remoting.ControllerGetSyncStateData), 1)
	require.Empty(t, follower.received(remoting.ControllerGetSyncStateData))
}
