//go:build embedded_controller

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOwnControllerFilePerNode: the embedded controller keeps its 1009
// updates in a file named after the -c file (n0.controller.properties), so
// nodes whose -c files sit in one directory (deploy/cluster/n0..n2.properties
// started in place, several instances of the systemd template on one host
// under /etc/rocketmq) never share one: with one controller.properties
// beside the -c files, n0 would restart without the update it acknowledged
// and with n1's instead.
func TestOwnControllerFilePerNode(t *testing.T) {
	dir := t.TempDir()
	path := func(id string) string {
		p := filepath.Join(dir, id+".properties")
		body := fmt.Sprintf(`enableControllerInNamesrv=true
listenPort=%d
controllerDLegerGroup=g
controllerDLegerPeers=n0-127.0.0.1:9878;n1-127.0.0.1:9868
controllerRaftPeers=n0-127.0.0.1:9879;n1-127.0.0.1:9869
controllerDLegerSelfId=%s
controllerStorePath=%s
`, map[string]int{"n0": 9876, "n1": 9866}[id], id, filepath.Join(dir, id+"-store"))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	p0, p1 := path("n0"), path("n1")
	running := func(p string) *NamesrvConfig { // a node started and running
		c, err := Load(p)
		require.NoError(t, err)
		return c
	}
	update := func(c *NamesrvConfig, body string) {
		n, err := c.ApplyControllerUpdate([]byte(body))
		require.NoError(t, err)
		require.NoError(t, n.Controller.Persist())
	}
	r0, r1 := running(p0), running(p1)
	update(r0, "scanInactiveMasterInterval=7000") // acknowledged by n0
	update(r1, "electMasterMaxRetryCount=5")      // acknowledged by n1
	c0, err := Load(p0)
	require.NoError(t, err)
	c1, err := Load(p1)
	require.NoError(t, err)
	t.Logf("own files: n0 %s, n1 %s; after restart n0 scanInactiveMasterInterval=%d electMasterMaxRetryCount=%d",
		c0.Controller.ConfigStorePath, c1.Controller.ConfigStorePath,
		c0.Controller.ScanInactiveMasterInterval, c0.Controller.ElectMasterMaxRetryCount)
	require.Equal(t, int64(7000), c0.Controller.ScanInactiveMasterInterval, "n0 lost the update it acknowledged")
	require.NotEqual(t, c0.Controller.ConfigStorePath, c1.Controller.ConfigStorePath, "two nodes share one own file")
}
