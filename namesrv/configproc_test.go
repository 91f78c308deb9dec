package namesrv

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// TestUpdateConfigRefusesNodeKeys: listener, address, size and identity keys
// are answered as Java answers a black-listed key, whatever configBlackList
// says; a value that does not parse is a SYSTEM_ERROR naming it.
func TestUpdateConfigRefusesNodeKeys(t *testing.T) {
	srv := startServer(t, nil)
	c := dial(t, srv)
	for _, body := range []string{"listenPort=1", "bindAddress=10.9.9.9", "frameMaxLength=2097152",
		"metricsPromExporterPort=1", "metricsPromExporterHost=10.9.9.9", "controllerDLegerSelfId=n1"} {
		resp := invoke(t, c, remoting.NewRequest(remoting.UpdateNamesrvConfig, nil, []byte(body)))
		require.Equal(t, remoting.NoPermission, resp.Code, body)
		require.Equal(t, "Can not update config in black list.", resp.Remark, body)
	}
	resp := invoke(t, c, remoting.NewRequest(remoting.UpdateNamesrvConfig, nil, []byte("scanNotActiveBrokerInterval=notanumber")))
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Contains(t, resp.Remark, "scanNotActiveBrokerInterval (notanumber)")
	require.Equal(t, int64(5000), srv.Config().ScanNotActiveBrokerInterval)
}

// TestUpdateConfigSurvivesRestart: an accepted update is persisted to the
// -c file; a node started again from the same file comes up with it.
func TestUpdateConfigSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "namesrv.properties")
	body := "bindAddress=127.0.0.1\nlistenPort=0\nkvConfigPath=" + filepath.Join(dir, "kv.json") + "\n"
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	srv := startFromFile(t, path)
	resp := invoke(t, dial(t, srv), remoting.NewRequest(remoting.UpdateNamesrvConfig, nil, []byte("scanNotActiveBrokerInterval=7000")))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	stopServer(t, srv)

	again := startFromFile(t, path)
	defer stopServer(t, again)
	require.Equal(t, int64(7000), again.Config().ScanNotActiveBrokerInterval)
	bak, err := os.ReadFile(path + ".bak")
	require.NoError(t, err)
	require.Equal(t, body, string(bak))
}

func startFromFile(t *testing.T, path string) *Server {
	t.Helper()
	cfg, err := config.Load(path)
	require.NoError(t, err)
	require.NoError(t, cfg.Validate())
	srv, err := New(cfg, testLogger(t))
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	return srv
}

func stopServer(t *testing.T, srv *Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx))
}
