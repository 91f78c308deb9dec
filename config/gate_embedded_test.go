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

// TestEmbeddedControllerUpdateRestart: a harmless UPDATE_CONTROLLER_CONFIG
// on an embedded controller persists to the controller's own file (never
// the NameServer's -c file, even when configStorePath names it), keeps a
// .bak, and a node loaded again from the same files is valid and has it.
func TestEmbeddedControllerUpdateRestart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "namesrv.properties")
	body := "enableControllerInNamesrv=true\nbindAddress=127.0.0.1\nlistenPort=9876\nconfigStorePath=" + path + `
controllerDLegerPeers=n0-127.0.0.1:9878;n1-127.0.0.1:9868
controllerRaftPeers=n0-127.0.0.1:9879;n1-127.0.0.1:9869
controllerDLegerSelfId=n0
controllerStorePath=` + filepath.Join(dir, "store") + "\n"
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	c, err := Load(path)
	require.NoError(t, err)
	require.NoError(t, c.Validate())

	for i, v := range []string{"6000", "7000"} {
		next, err := c.Controller.ApplyUpdate([]byte("scanInactiveMasterInterval=" + v))
		require.NoError(t, err)
		require.NoError(t, next.Persist())
		c.Controller = *next
		if i == 0 {
			require.NoFileExists(t, c.Controller.ConfigStorePath+".bak")
		}
	}
	require.Equal(t, filepath.Join(dir, "namesrv.controller.properties"), c.Controller.ConfigStorePath)
	require.FileExists(t, c.Controller.ConfigStorePath+".bak")
	ns, err := c.ApplyUpdate([]byte("orderMessageEnable=true"))
	require.NoError(t, err)
	require.NoError(t, ns.Persist())

	back, err := Load(path)
	require.NoError(t, err)
	require.NoError(t, back.Validate())
	require.Equal(t, int64(7000), back.Controller.ScanInactiveMasterInterval)
	require.Equal(t, 9876, back.ListenPort)
	require.True(t, back.OrderMessageEnable)
	require.Equal(t, "127.0.0.1:9878", back.Controller.SelfRemotingAddr())
	main, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(main), "scanInactiveMasterInterval=7000", "the controller's keys stay in its own file")
}

// TestEmbeddedControllerFileIgnoresNodeKeys: the controller's own file
// cannot change what the node is, even when edited by hand.
func TestEmbeddedControllerFileIgnoresNodeKeys(t *testing.T) {
	path := controllerFile(t, "enableControllerInNamesrv=true\n")
	own := filepath.Join(filepath.Dir(path), "node.controller.properties")
	require.NoError(t, os.WriteFile(own, []byte("controllerDLegerSelfId=n1\nlistenPort=9868\nelectMasterMaxRetryCount=5\n"), 0o644))
	c, err := Load(path)
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	require.Equal(t, "n0", c.Controller.ControllerDLegerSelfId)
	require.Equal(t, 5, c.Controller.ElectMasterMaxRetryCount)
}

func TestEmbeddedControllerFileIsNotTheCFile(t *testing.T) {
	src, err := os.ReadFile(controllerFile(t, "enableControllerInNamesrv=true\n"))
	require.NoError(t, err)
	path := writeFile(t, "controller.properties", string(src))
	c, err := Load(path)
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	require.Equal(t, filepath.Join(filepath.Dir(path), "controller.controller.properties"), c.Controller.ConfigStorePath)
}

// TestEmbeddedControllerLegacyFileReadOnce: a node upgraded from the
// shared controller.properties reads it while it has no own file yet; its
// next accepted update writes its own file, which wins from then on.
func TestEmbeddedControllerLegacyFileReadOnce(t *testing.T) {
	path := controllerFile(t, "enableControllerInNamesrv=true\n")
	legacy := filepath.Join(filepath.Dir(path), "controller.properties")
	require.NoError(t, os.WriteFile(legacy, []byte("electMasterMaxRetryCount=5\n"), 0o644))
	c, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, 5, c.Controller.ElectMasterMaxRetryCount, "the legacy file is read while there is no own file")
	n, err := c.ApplyControllerUpdate([]byte("scanInactiveMasterInterval=7000"))
	require.NoError(t, err)
	require.NoError(t, n.Controller.Persist())
	require.NoError(t, os.WriteFile(legacy, []byte("electMasterMaxRetryCount=9\n"), 0o644))
	back, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, 5, back.Controller.ElectMasterMaxRetryCount, "the own file keeps what was read, ignores the legacy file")
	require.Equal(t, int64(7000), back.Controller.ScanInactiveMasterInterval)
}

// TestEmbeddedControllerAccessKey: the embedded controller reads
// controllerAccessKey from the NameServer's -c file and checks it against
// the NameServer's accounts file (its ACL keys are the NameServer's).
func TestEmbeddedControllerAccessKey(t *testing.T) {
	yml := accountsFile(t)
	c, err := Load(controllerFile(t, "enableControllerInNamesrv=true\naclEnable=true\naclConfigPath="+yml+
		"\ncontrollerAccessKey=ctlPoller\n"))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	require.Equal(t, "ctlPoller", c.Controller.ControllerAccessKey)
	c, err = Load(controllerFile(t, "enableControllerInNamesrv=true\naclEnable=true\naclConfigPath="+yml+
		"\ncontrollerAccessKey=nobody1\n"))
	require.NoError(t, err)
	requireKeysNamed(t, c.Validate(), "controllerAccessKey (nobody1) must be an account of aclConfigPath")
}

// TestEmbeddedControllerAccessKeyNotUpdatable: neither
// UPDATE_CONTROLLER_CONFIG nor UPDATE_NAMESRV_CONFIG of a NameServer with
// the controller embedded changes controllerAccessKey, with ACL on or off
// (TestControllerAccessKeyNotUpdatable).
func TestEmbeddedControllerAccessKeyNotUpdatable(t *testing.T) {
	yml := accountsFile(t)
	for _, acl := range []string{"aclEnable=true", "aclEnable=false"} {
		c, err := Load(controllerFile(t, "enableControllerInNamesrv=true\n"+acl+"\naclConfigPath="+yml+"\n"))
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		_, err = c.ApplyControllerUpdate([]byte("controllerAccessKey=ctlPoller"))
		require.ErrorIs(t, err, ErrBlackListed, acl)
		_, err = c.ApplyUpdate([]byte("controllerAccessKey=ctlPoller"))
		require.ErrorIs(t, err, ErrBlackListed, acl)
	}
}
