//go:build embedded_controller

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// TestEmbeddedUpdateThenRestart: UPDATE_CONTROLLER_CONFIG on an embedded
// controller whose -c file names itself as configStorePath (as
// deploy/cluster does), then a restart in-process from the same files:
// the node starts, and has the new value; an identity key was refused.
func TestEmbeddedUpdateThenRestart(t *testing.T) {
	logger := raftstoretest.TestLogger(t, "namesrv")
	ctlLn := listen(t)
	tr, err := raftstore.NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	ctlAddr := ctlLn.Addr().String()
	path := restartFile(t, ctlAddr, string(tr.LocalAddr()))

	cfg, err := config.Load(path)
	require.NoError(t, err)
	srv, err := startNamesrv(cfg, logger)
	require.NoError(t, err)
	stop, err := runController(cfg, srv, logger, controller.WithListener(ctlLn), controller.WithRaftTransport(tr))
	require.NoError(t, err)
	waitLeader(t, ctlAddr)
	resp := invokeBody(t, ctlAddr, remoting.UpdateControllerConfig, "scanInactiveMasterInterval=6000\n")
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	resp = invokeBody(t, ctlAddr, remoting.UpdateControllerConfig, "controllerDLegerSelfId=n1\n")
	require.Equal(t, remoting.NoPermission, resp.Code, resp.Remark)
	stop()
	require.NoError(t, srv.Shutdown(context.Background()))

	again, err := config.Load(path)
	require.NoError(t, err)
	require.NoError(t, again.Validate(), "the node must start again from its own files")
	stopAll, err := startServers(again, nil, logger)
	require.NoError(t, err)
	defer stopAll()
	waitLeader(t, ctlAddr)
	body := string(invokeBody(t, ctlAddr, remoting.GetControllerConfig, "").Body)
	require.Contains(t, body, "scanInactiveMasterInterval=6000\n")
	require.Contains(t, body, "controllerDLegerSelfId=n0\n")
}

func restartFile(t *testing.T, ctlAddr, raftAddr string) string {
	dir := t.TempDir()
	path := filepath.Join(dir, "namesrv.properties")
	lines := []string{
		"bindAddress=127.0.0.1", "listenPort=0", "enableControllerInNamesrv=true",
		"configStorePath=" + path, "kvConfigPath=" + filepath.Join(dir, "kvConfig.json"),
		"controllerDLegerGroup=group1", "controllerDLegerSelfId=n0",
		"controllerDLegerPeers=n0-" + ctlAddr, "controllerRaftPeers=n0-" + raftAddr,
		"controllerStorePath=" + filepath.Join(dir, "store"),
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	return path
}

func invokeBody(t *testing.T, addr string, code int32, body string) *remoting.Command {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	resp, err := c.Invoke(ctx, remoting.NewRequest(code, nil, b))
	require.NoError(t, err)
	return resp
}
