//go:build embedded_controller

package controllertest

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestEditedPeerListsLoggedAtRestart: the Java habit (edit both peer lists,
// restart) changes no membership. The restarted node says so once, at
// start, naming the configured and the stored members and the mqadmin
// command that would make them match; the metric and the 1005 field show
// it until the lists match again.
func TestEditedPeerListsLoggedAtRestart(t *testing.T) {
	c := startCluster(t, 3, fastProps)
	c.leader()
	nd := c.follower()
	c.stop(nd)
	var peers, raftPeers []string
	for _, o := range c.nodes {
		peers = append(peers, o.id+"-"+o.remoting)
		raftPeers = append(raftPeers, o.id+"-"+o.raft)
	}
	newRemoting, newRaft := freeAddr(t), freeAddr(t)
	require.Equal(t, nd.path, writeProps(t, filepath.Dir(nd.path), nd.id, strings.Join(append(peers, "n9-"+newRemoting), ";"),
		strings.Join(append(raftPeers, "n9-"+newRaft), ";"), fastProps), "same file, same store")

	logger, lines := testlog.Capture(t, nd.id, hclog.Info)
	c.logger = logger
	c.restart(nd)
	require.Eventually(t, func() bool { return lines.Has("controllerRaftPeers differ") }, waitLimit, 20*time.Millisecond)
	line := lines.String()
	require.Contains(t, line, "mqadmin addControllerMember")
	require.Contains(t, line, "-i n9 -r "+newRaft)
	require.Contains(t, line, "or_set=")
	require.Equal(t, "1", nd.ctl.RaftStats()["members_drift"])
	require.Eventually(t, func() bool { return nd.ctl.Node().LeaderID() != "" }, waitLimit, 20*time.Millisecond)
	require.Never(t, func() bool { return lines.Count("controllerRaftPeers differ") > 1 }, time.Second, 50*time.Millisecond,
		"one line at start, none when the node learns the leader nor per reconcile")
}
