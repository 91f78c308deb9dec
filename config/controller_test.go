package config

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePeers(t *testing.T) {
	peers, err := ParsePeers("controllerDLegerPeers", " n0-127.0.0.1:9878; n1-host-b:9868;;")
	require.NoError(t, err)
	require.Equal(t, []Peer{{"n0", "127.0.0.1:9878"}, {"n1", "host-b:9868"}}, peers)

	for _, bad := range []string{"", ";", "n0", "n0-127.0.0.1", "-127.0.0.1:1", "n0-:9878",
		"n0-127.0.0.1:0", "n0-127.0.0.1:x", "n0-a:1;n0-b:2"} {
		_, err := ParsePeers("controllerDLegerPeers", bad)
		require.ErrorIs(t, err, ErrInvalid, bad)
		require.Contains(t, err.Error(), "controllerDLegerPeers", bad)
	}
}

func controllerFile(t *testing.T, extra string) string {
	store := filepath.Join(t.TempDir(), "store")
	return writeFile(t, "node.properties", fmt.Sprintf(`controllerDLegerGroup=group1
controllerDLegerPeers=n0-127.0.0.1:9878;n1-127.0.0.1:9868
controllerRaftPeers=n0-127.0.0.1:9879;n1-127.0.0.1:9869
controllerDLegerSelfId=n0
controllerStorePath=%s
%s`, store, extra))
}

func TestLoadControllerStandalone(t *testing.T) {
	cc, err := LoadController(controllerFile(t, "enableElectUncleanMaster=true\n"))
	require.NoError(t, err)
	require.NoError(t, cc.Validate())
	require.True(t, cc.EnableElectUncleanMaster)
	require.Equal(t, "127.0.0.1:9878", cc.SelfRemotingAddr())
	require.Equal(t, "127.0.0.1:9879", cc.SelfRaftAddr())
	require.Equal(t, 19876, cc.ListenPort, "Java's standalone default before DLedger's overwrite")
	require.Equal(t, "9878", mustParse(t, cc.Render())["listenPort"])
}

func TestControllerValidateReportsAll(t *testing.T) {
	cc, err := LoadController(controllerFile(t, `controllerRaftPeers=n0-127.0.0.1:9878;n2-127.0.0.1:9869
controllerDLegerSelfId=n1
electMasterMaxRetryCount=0
scanInactiveMasterInterval=abc
`))
	require.NoError(t, err)
	err = cc.Validate()
	requireKeysNamed(t, err,
		"controllerDLegerSelfId (n1) is not an id of controllerRaftPeers",
		"controllerRaftPeers ids (n0,n2) differ from controllerDLegerPeers ids (n0,n1)",
		"n0's raft address 127.0.0.1:9878 collides",
		"electMasterMaxRetryCount (0) must be between 1 and 100",
		"scanInactiveMasterInterval (abc) is not a valid long")
}

func TestControllerValidateMissingPeers(t *testing.T) {
	cc, err := LoadController(writeFile(t, "c.properties", "controllerStorePath="+t.TempDir()+"\n"))
	require.NoError(t, err)
	requireKeysNamed(t, cc.Validate(), "controllerDLegerPeers is missing",
		"controllerRaftPeers is missing", "controllerDLegerSelfId is missing")
}

func TestControllerStandaloneUpdate(t *testing.T) {
	cc, err := LoadController(controllerFile(t, ""))
	require.NoError(t, err)
	n, err := cc.ApplyUpdate([]byte("notifyBrokerRoleChanged=false"))
	require.NoError(t, err)
	require.False(t, n.NotifyBrokerRoleChanged)
	_, err = cc.ApplyUpdate([]byte("configStorePath=/x"))
	require.ErrorIs(t, err, ErrBlackListed)
	_, err = cc.ApplyUpdate([]byte("scanInactiveMasterInterval=0"))
	require.ErrorIs(t, err, ErrRejectedUpdate)
}
