//go:build embedded_controller

package controller

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
)

const openRaftWarning = "aclEnable=true does not protect the raft port"

// TestAttackOpenRaftPortWithACLWarns: ACL checks
// remoting requests only; hashicorp/raft takes RPCs from anyone who
// reaches its port. With aclEnable=true and the Raft transport in
// plaintext on an address beyond loopback, New logs one warning naming the
// keys that close that door; not on loopback, not with Raft TLS, not
// without ACL.
func TestAttackOpenRaftPortWithACLWarns(t *testing.T) {
	aclFile := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(aclFile, []byte("accounts: []\n"), 0o600))
	ca := testcerts.NewCA(t, "raft-ca")
	f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n0", ca)
	acl := []string{"aclEnable=true", "aclConfigPath=" + aclFile}
	raftTLS := []string{"controllerRaftTlsEnable=true", "controllerRaftTlsCertPath=" + f.Cert,
		"controllerRaftTlsKeyPath=" + f.Key, "controllerRaftTlsTrustCertPath=" + f.CA}
	for _, tc := range []struct {
		name, raftAddr string
		props          []string
		warns          bool
	}{
		{"acl, plaintext, routable address", "192.0.2.10:9880", acl, true},
		{"acl, plaintext, unspecified address", "0.0.0.0:9880", acl, true},
		{"acl, plaintext, ipv6 address", "[2001:db8::1]:9880", acl, true},
		{"acl, plaintext, host name", "controller-0.example:9880", acl, true},
		{"acl, plaintext, loopback", "127.0.0.1:9880", acl, false},
		{"acl, plaintext, ipv6 loopback", "[::1]:9880", acl, false},
		{"acl, plaintext, localhost", "localhost:9880", acl, false},
		{"acl, raft tls, routable address", "192.0.2.10:9880", append(acl, raftTLS...), false},
		{"no acl, plaintext, routable address", "192.0.2.10:9880", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logger, lines := testlog.Capture(t, "ctl", hclog.Info)
			newOnInmemRaft(t, logger, "n0-"+tc.raftAddr, tc.props...)
			if !tc.warns {
				require.Zero(t, lines.Count(openRaftWarning))
				return
			}
			require.Equal(t, 1, lines.Count(openRaftWarning))
			for _, key := range []string{"controllerRaftTlsEnable=true", "controllerRaftTlsCertPath",
				"controllerRaftTlsKeyPath", "controllerRaftTlsTrustCertPath", tc.raftAddr} {
				require.Contains(t, lines.String(), key)
			}
		})
	}
}

// newOnInmemRaft runs New for a one-node group whose configured Raft
// address is raftPeers' (never bound: the node runs on an in-memory
// transport) and shuts it down at the end of the test.
func newOnInmemRaft(t *testing.T, logger hclog.Logger, raftPeers string, props ...string) {
	t.Helper()
	machine := NewFSM(logger)
	cluster := raftstoretest.NewInmemCluster(t, 1, func(string) raft.FSM { return machine })
	id := cluster.IDs()[0]
	lns, peers := listenPeers(t, []string{id})
	cfg := testControllerConfig(t, id, peers, raftPeers, props...)
	ctl, err := New(cfg, logger, WithListener(lns[0]), WithRaftNode(cluster.Node(id), machine))
	require.NoError(t, err)
	require.NoError(t, ctl.Start())
	t.Cleanup(func() { require.NoError(t, ctl.Shutdown(context.Background())) })
}
