//go:build embedded_controller

package deploy

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
)

// Every compose node and the rendered Kubernetes configuration pass the
// startup validation of a -tags embedded_controller binary (state paths
// moved to a temporary directory: /data is the container's).
func TestDeployedConfigsValidate(t *testing.T) {
	for name, svc := range readCompose(t).Services {
		env := map[string]string{}
		for k, v := range svc.Environment {
			env[k] = v
		}
		env["NAMESRV_CONTROLLER_STORE_PATH"] = filepath.Join(t.TempDir(), "controller")
		env["NAMESRV_KV_CONFIG_PATH"] = filepath.Join(t.TempDir(), "kvConfig.json")
		require.NoError(t, loadNode(t, env).Validate(), name)
	}
	c, err := config.LoadWithEnv(renderTemplate(t, readK8s(t)), []string{
		"NAMESRV_CONTROLLER_STORE_PATH=" + filepath.Join(t.TempDir(), "controller"),
	})
	require.NoError(t, err)
	require.NoError(t, c.Validate())
}
