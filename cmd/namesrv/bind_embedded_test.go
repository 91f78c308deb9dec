//go:build embedded_controller

package main

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBusyControllerPortServesNothing: with the embedded Controller's port
// taken, the start fails naming it before the NameServer serves (every
// listener is bound before any serves).
func TestBusyControllerPortServesNothing(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	dir := t.TempDir()
	props := writeProps(t, "bindAddress=127.0.0.1", "listenPort=0", "kvConfigPath="+filepath.Join(dir, "kv.json"),
		"enableControllerInNamesrv=true", "controllerDLegerGroup=g", "controllerDLegerSelfId=n0",
		"controllerDLegerPeers=n0-"+busy.Addr().String(), "controllerRaftPeers=n0-"+freeAddr(t).String(),
		"controllerStorePath="+filepath.Join(dir, "ctl"))
	code, _, errOut := runMain("-c", props)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, busy.Addr().String())
	require.NotContains(t, errOut, "name server started")
}
