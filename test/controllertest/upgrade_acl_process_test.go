//go:build embedded_controller

package controllertest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/remoting"
)

// TestRollingUpgradeACLProcesses is the rolling upgrade from
// previousRelease with real binaries (RMQ_TEST_LONG=1, make test-long)
// and aclEnable=true, aclAnonymousRead=false on every node (README,
// "Upgrading" with ACL): controllerAccessKey, a read account of the shared
// accounts file, is in every node's properties from the start (the old
// binary keeps the unknown key and runs). The leader and one follower are
// upgraded first; with a new node leading, the old follower answers the
// signed poll (the held reason is its format, not a denial), and once the
// last node runs the new binary the cluster version becomes 2. No node
// denies a request throughout.
func TestRollingUpgradeACLProcesses(t *testing.T) {
	if os.Getenv("RMQ_TEST_LONG") != "1" {
		t.Skip("builds " + previousRelease + " and runs a rolling upgrade: RMQ_TEST_LONG=1 (make test-long)")
	}
	oldBin := oldBinary(t)
	newBin := binary(t, "namesrv")
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(yml, []byte(`accounts:
  - {accessKey: ctlPoller, secretKey: poller-secret, role: read}
  - {accessKey: rocketmqAdmin, secretKey: admin-secret, role: admin}
`), 0o600))
	uc := startUpClusterWith(t, oldBin, newBin, []string{"aclEnable=true", "aclAnonymousRead=false",
		"aclConfigPath=" + yml, "controllerAccessKey=ctlPoller"})
	uc.sign = func(req *remoting.Command) { acl.Sign(req, "ctlPoller", "poller-secret", "") }
	t.Cleanup(func() { t.Logf("cluster version held: %v", uc.heldReasons()) })
	require.Nil(t, metadata(uc.nodes[0].ctl, time.Second), "an unsigned 1005 is denied")
	for _, nd := range uc.nodes {
		uc.awaitController(t, nd)
	}
	uc.denied.Store(0)
	order := uc.order(t)
	old := order[1]
	uc.restartACL(t, order[0], true)
	uc.restartACL(t, order[2], true)
	uc.newLeader(t)
	require.Eventually(t, func() bool { return uc.heldFor("server " + old.id + " reads up to format 1") },
		waitLimit, 50*time.Millisecond, "the old node %s never answered the signed poll", old.id)
	require.Equal(t, []string{"1", "1", "1"}, uc.clusterVersions())
	uc.restartACL(t, old, true)
	require.Eventually(t, func() bool { return slices.Equal(uc.clusterVersions(), []string{"2", "2", "2"}) },
		waitLimit, 100*time.Millisecond, "cluster version not raised: %v", uc.clusterVersions())
	require.False(t, uc.heldFor("code 16"), "a node denied the poll")
	require.Zero(t, uc.denied.Load(), "a node denied a request")
	uc.stopAll(t)
	require.Zero(t, uc.stops.Load(), "a node stopped applying")
}

// restartACL stops nd with SIGTERM (exit 0) and starts it on the new or the
// old binary, then waits until it answers a signed 1005.
func (uc *upCluster) restartACL(t *testing.T, nd *upNode, newBin bool) {
	require.Equal(t, 0, nd.proc.signal(syscall.SIGTERM), "graceful stop of %s", nd.id)
	uc.start(nd, newBin)
	uc.awaitController(t, nd)
}

// newLeader restarts an old leader on its binary until a node of the new
// binary leads.
func (uc *upCluster) newLeader(t *testing.T) {
	for range 5 {
		leader := uc.order(t)[2]
		if leader.newBin {
			return
		}
		t.Logf("the old node %s leads: restarting it on the old binary", leader.id)
		uc.restartACL(t, leader, false)
	}
	t.Fatal("no node of the new binary leads after five restarts of the old one")
}

// heldFor reports whether a "cluster version held" line contains s.
func (uc *upCluster) heldFor(s string) bool {
	return slices.ContainsFunc(uc.heldReasons(), func(l string) bool { return strings.Contains(l, s) })
}

func (uc *upCluster) heldReasons() []string {
	uc.heldMu.Lock()
	defer uc.heldMu.Unlock()
	return slices.Clone(uc.heldLines)
}
