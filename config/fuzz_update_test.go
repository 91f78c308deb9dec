package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// identity is what no remote update may change: listeners, addresses,
// sizes, paths and the controller's identity.
type identity struct {
	bind, selfID, raftPeers, dlegerPeers, kvPath, storePath, ctrlStore string
	port, frame, metricsPort                                           int
}

func identityOf(c *NamesrvConfig) identity {
	return identity{bind: c.BindAddress, port: c.ListenPort, frame: c.FrameMaxLength, metricsPort: c.MetricsPromExporterPort,
		kvPath: c.KVConfigPath, storePath: c.ConfigStorePath, selfID: c.Controller.ControllerDLegerSelfId,
		raftPeers: c.Controller.ControllerRaftPeers, dlegerPeers: c.Controller.ControllerDLegerPeers,
		ctrlStore: c.Controller.ControllerStorePath}
}

// FuzzConfigUpdate feeds arbitrary UPDATE_NAMESRV_CONFIG and
// UPDATE_CONTROLLER_CONFIG bodies to a loaded config: an update is either
// refused, or leaves the identity untouched, validates, and survives a
// restart (render, load, validate).
func FuzzConfigUpdate(f *testing.F) {
	for _, s := range []string{"scanNotActiveBrokerInterval=notanumber", "listenPort=1", "orderMessageEnable=true",
		"scanInactiveMasterInterval=6000", "controllerDLegerSelfId=n2", "a\\\n=b\\u0041", "frameMaxLength=1",
		"waitSecondsForService=-1\nenableTopicList=false", "#c\n!d\n k : v ", "bindAddress=10.9.9.9"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, controller bool) {
		dir := t.TempDir()
		path := filepath.Join(dir, "namesrv.properties")
		require.NoError(t, os.WriteFile(path, []byte("listenPort=9876\n"), 0o600))
		c, err := Load(path)
		require.NoError(t, err)
		apply := c.ApplyUpdate
		if controller {
			apply = c.ApplyControllerUpdate
		}
		n, err := apply(body)
		if err != nil {
			return
		}
		require.Equal(t, identityOf(c), identityOf(n), "an accepted update changed the node's identity")
		require.NoError(t, n.Validate())
		require.NoError(t, os.WriteFile(path, n.Render(), 0o600))
		back, err := Load(path)
		require.NoError(t, err, "an accepted update must survive a restart")
		require.NoError(t, back.Validate())
		require.Equal(t, identityOf(c), identityOf(back))
	})
}
