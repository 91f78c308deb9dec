//go:build embedded_controller

package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGateWithTagValid(t *testing.T) {
	require.True(t, ControllerCompiledIn)
	c, err := Load(controllerFile(t, "enableControllerInNamesrv=true\n"))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	require.Equal(t, "127.0.0.1:9878", c.Controller.SelfRemotingAddr())
}

func TestEmbeddedControllerRulesAllAtOnce(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", `enableControllerInNamesrv=true
listenPort=9876
controllerDLegerPeers=n0-127.0.0.1:9876;n1-bad
controllerRaftPeers=n0-0.0.0.0:9876
controllerDLegerSelfId=n0
controllerStorePath=
`))
	require.NoError(t, err)
	c.Controller.ControllerStorePath = ""
	err = c.Validate()
	requireKeysNamed(t, err,
		`controllerDLegerPeers entry "n1-bad"`,
		"controllerRaftPeers: self address 0.0.0.0:9876 collides with the NameServer listen address",
		"controllerStorePath must not be empty")
}

func TestEmbeddedControllerCollisions(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", `enableControllerInNamesrv=true
bindAddress=0.0.0.0
listenPort=9878
controllerDLegerPeers=n0-127.0.0.1:9878;n1-127.0.0.1:9868
controllerRaftPeers=n0-127.0.0.1:9878;n1-127.0.0.1:9869
controllerDLegerSelfId=n0
controllerStorePath=`+t.TempDir()+"\n"))
	require.NoError(t, err)
	requireKeysNamed(t, c.Validate(),
		"n0's raft address 127.0.0.1:9878 collides with its controllerDLegerPeers address",
		"controllerDLegerPeers: self address 127.0.0.1:9878 collides with the NameServer listen address 0.0.0.0:9878",
		"controllerRaftPeers: self address 127.0.0.1:9878 collides with the NameServer listen address")
}

func TestEmbeddedControllerStoreNotWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write anywhere")
	}
	ro := t.TempDir()
	require.NoError(t, os.Chmod(ro, 0o500))
	c, err := Load(controllerFile(t, "enableControllerInNamesrv=true\n"))
	require.NoError(t, err)
	c.Controller.ControllerStorePath = filepath.Join(ro, "store")
	requireKeysNamed(t, c.Validate(), "controllerStorePath")
}

func TestEmbeddedStoreIsAFile(t *testing.T) {
	c, err := Load(controllerFile(t, "enableControllerInNamesrv=true\n"))
	require.NoError(t, err)
	c.Controller.ControllerStorePath = writeFile(t, "plain-file", "x")
	requireKeysNamed(t, c.Validate(), "controllerStorePath", "not a creatable, writable directory")
}

func TestEmbeddedDisabledSkipsControllerRules(t *testing.T) {
	c := Default()
	require.NoError(t, c.Validate(), "no peers needed while enableControllerInNamesrv=false")
}
