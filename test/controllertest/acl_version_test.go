//go:build embedded_controller

package controllertest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/version"
)

// TestClusterVersionRaisedWithACLOnLoopback: three controllers on loopback
// (TCP Raft transport, remoting) with aclEnable=true,
// aclAnonymousRead=false and one accounts file, controllerAccessKey a read
// account: fresh nodes start at cluster version 1, and the leader's signed
// 1005 poll is answered, so it raises the version to this binary's format.
func TestClusterVersionRaisedWithACLOnLoopback(t *testing.T) {
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(yml, []byte(`accounts:
  - {accessKey: ctlPoller, secretKey: poller-secret, role: read}
`), 0o600))
	c := startCluster(t, 3, []string{"aclEnable=true", "aclAnonymousRead=false", "aclConfigPath=" + yml,
		"controllerAccessKey=ctlPoller"})
	want := strconv.Itoa(version.ControllerFormat)
	require.Eventually(t, func() bool {
		for _, nd := range c.running() {
			if nd.ctl.RaftStats()["cluster_version"] != want {
				return false
			}
		}
		return true
	}, waitLimit, 10*time.Millisecond, "cluster version not raised to %s", want)
}
