//go:build embedded_controller

package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

// pollerAccount is the read account the nodes sign their 1005 poll with;
// adminAccount is there so that the file is valid without it.
const (
	pollerAccount = "  - {accessKey: ctlPoller, secretKey: poller-secret, role: read}\n"
	adminAccount  = "  - {accessKey: rocketmqAdmin, secretKey: admin-secret, role: admin}\n"
)

// writeAccounts replaces the accounts file at path atomically (a new file
// renamed over it, as README recommends).
func writeAccounts(t *testing.T, path string, accounts ...string) {
	t.Helper()
	tmp := path + ".tmp"
	require.NoError(t, os.WriteFile(tmp, []byte("accounts:\n"+strings.Join(accounts, "")), 0o600))
	require.NoError(t, os.Rename(tmp, path))
}

// aclGroup is a version group (three nodes limited to format 1) with ACL
// on, anonymous reads off, and every node on the same accounts file;
// extra adds properties (controllerAccessKey). The nodes keep the
// production Raft timeouts (steadyRaft): the tests count log lines logged
// once per leader term, and check what the leader of the moment sends.
func aclGroup(t *testing.T, logger hclog.Logger, extra ...string) (*versionGroup, string) {
	t.Helper()
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeAccounts(t, yml, pollerAccount, adminAccount)
	props := append([]string{"aclEnable=true", "aclAnonymousRead=false", "aclConfigPath=" + yml}, extra...)
	return newVersionGroupLogged(t, logger, steadyRaft, props...), yml
}

func (g *versionGroup) upgradeAll() {
	for _, id := range g.ic.cluster.IDs() {
		g.upgrade(id)
	}
}

// waitPoller waits until every node's accounts (any node may lead next)
// pass reloaded for the poller's account.
func (g *versionGroup) waitPoller(t *testing.T, reloaded func(acc acl.Account, ok bool) bool) {
	t.Helper()
	eventually(t, "every node reloaded the accounts", func() bool {
		for _, ctl := range g.ic.ctls {
			if !reloaded(ctl.acl.Account("ctlPoller")) {
				return false
			}
		}
		return true
	})
}

// requireHeld checks that every node is still at cluster version want.
func (g *versionGroup) requireHeld(t *testing.T, want int) {
	t.Helper()
	for id, ctl := range g.ic.ctls {
		require.Equal(t, want, ctl.fsm.ClusterVersion(), "node %s", id)
	}
}

// TestClusterVersionRaisedWithACL: with aclEnable=true and
// aclAnonymousRead=false on every node, the leader signs its 1005 poll
// with controllerAccessKey (a read account of the shared accounts file),
// so a rolling upgrade finishes: the cluster version rises to the newest
// format once every node reads it.
func TestClusterVersionRaisedWithACL(t *testing.T) {
	g, _ := aclGroup(t, testLogger(t), "controllerAccessKey=ctlPoller")
	g.rounds(t, 3)
	g.requireHeld(t, formatV1)
	g.upgradeAll()
	g.waitVersion(t, formatClusterVersion)
	for id, ctl := range g.ic.ctls {
		require.Positive(t, g.recs[id].count(eventClusterVersion), "node %s applied the raise", id)
		resp := invokeSigned(t, ctl.Addr(), "ctlPoller", "poller-secret")
		require.Equal(t, codeSuccess, resp.Code, resp.Remark)
		require.Equal(t, "2", resp.ExtFields[extClusterVersion], "node %s 1005", id)
	}
}

// TestClusterVersionHeldWithoutAccessKey: ACL on, anonymous reads off and
// no controllerAccessKey: the other nodes deny the unsigned poll, the
// version is held and the reason, logged once, tells the operator to set
// the key; each denying node logs its denial once (a minute), not at every
// poll.
func TestClusterVersionHeldWithoutAccessKey(t *testing.T) {
	logger, lines := testlog.Capture(t, "ctl", hclog.Info)
	g, _ := aclGroup(t, logger)
	g.upgradeAll()
	g.rounds(t, 20)
	g.requireHeld(t, formatV1)
	why := g.ic.leader(t).tryRaise(t.Context())
	t.Logf("held: %s", why)
	require.Contains(t, why, "code 16")
	require.Contains(t, why, "set controllerAccessKey")
	require.Equal(t, 1, lines.Count("cluster version held"), "logged once per reason")
	require.Equal(t, 1, lines.Count("set controllerAccessKey"))
	// two peers, each denying 20 polls or more
	require.LessOrEqual(t, lines.Count("request denied"), 2, "a denying node logs once per access key and minute")
}

// TestClusterVersionAccessKeyRemovedFromFile: the account is looked up at
// each poll, so a hot-reloaded accounts file that no longer has it holds
// the version with a reason naming the key (nothing is sent), and putting
// it back lets the version rise.
func TestClusterVersionAccessKeyRemovedFromFile(t *testing.T) {
	g, yml := aclGroup(t, testLogger(t), "controllerAccessKey=ctlPoller")
	leader := g.ic.leader(t)
	writeAccounts(t, yml, adminAccount)
	g.waitPoller(t, func(_ acl.Account, ok bool) bool { return !ok })
	require.Equal(t, remoting.NoPermission, invokeSigned(t, leader.Addr(), "ctlPoller", "poller-secret").Code)
	g.upgradeAll()
	g.rounds(t, 3)
	why := leader.tryRaise(t.Context())
	t.Logf("held: %s", why)
	require.Contains(t, why, "controllerAccessKey (ctlPoller)")
	require.Contains(t, why, "aclConfigPath")
	g.requireHeld(t, formatV1)
	writeAccounts(t, yml, pollerAccount, adminAccount)
	g.waitVersion(t, formatClusterVersion)
}

// TestClusterVersionAccessKeyRoleChangedByReload: a reload that gives the
// account another role than read holds the version (nothing is sent: the
// fieldless poll's signature would be the account's for any request
// without fields), with a reason naming the key and the role; the read
// role back lets it rise.
func TestClusterVersionAccessKeyRoleChangedByReload(t *testing.T) {
	g, yml := aclGroup(t, testLogger(t), "controllerAccessKey=ctlPoller")
	leader := g.ic.leader(t)
	writeAccounts(t, yml, strings.Replace(pollerAccount, "role: read", "role: admin", 1), adminAccount)
	g.waitPoller(t, func(acc acl.Account, ok bool) bool { return ok && acc.Role == acl.PermAdmin })
	g.upgradeAll()
	g.rounds(t, 3)
	why := leader.tryRaise(t.Context())
	t.Logf("held: %s", why)
	require.Contains(t, why, "controllerAccessKey (ctlPoller) has role admin")
	require.Contains(t, why, "needs exactly read")
	g.requireHeld(t, formatV1)
	writeAccounts(t, yml, pollerAccount, adminAccount)
	g.waitVersion(t, formatClusterVersion)
}

// TestClusterVersionRaisedWithBrokenAccountsFile: an accounts file broken
// mid-upgrade keeps the previous accounts (package acl), so the leader
// still signs with the account and the version rises.
func TestClusterVersionRaisedWithBrokenAccountsFile(t *testing.T) {
	logger, lines := testlog.Capture(t, "ctl", hclog.Info)
	g, yml := aclGroup(t, logger, "controllerAccessKey=ctlPoller")
	require.NoError(t, os.WriteFile(yml, []byte("accounts: [\n"), 0o600))
	eventually(t, "every node saw the broken file", func() bool { return lines.Count("acl file invalid") >= 3 })
	g.upgradeAll()
	g.waitVersion(t, formatClusterVersion)
	require.Zero(t, lines.Count("cannot sign requests"), "the account was there")
	require.Zero(t, lines.Count("code 16"), "no node denied the poll")
}

// invokeSigned sends a 1005 signed with accessKey and secret.
func invokeSigned(t *testing.T, addr, accessKey, secret string) *remoting.Command {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{
		Sign: func(req *remoting.Command) { acl.Sign(req, accessKey, secret, "") }})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil))
	require.NoError(t, err)
	return resp
}
