package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestACLDefaults(t *testing.T) {
	c := Default()
	require.False(t, c.AclEnable)
	require.True(t, c.AclAnonymousRead)
	require.Equal(t, filepath.Join(filepath.Dir(c.ConfigStorePath), DefaultACLFileName), c.AclConfigPath)
	require.Equal(t, c.ACL, c.Controller.ACL)
	require.NoError(t, c.Validate(), "off by default: no file needed")

	path := writeFile(t, "n.properties", "aclAnonymousRead=false\n")
	c, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(filepath.Dir(path), DefaultACLFileName), c.AclConfigPath)
	require.False(t, c.Controller.AclAnonymousRead, "the embedded controller checks as its NameServer")
}

func TestACLEnableNeedsAReadableFile(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(writeFile(t, "n.properties", "aclEnable=true\naclConfigPath="+filepath.Join(dir, "none.yml")+"\n"))
	require.NoError(t, err)
	requireKeysNamed(t, c.Validate(), "aclConfigPath", "none.yml", "aclEnable")

	c, err = Load(writeFile(t, "n.properties", "aclEnable=true\naclConfigPath="+dir+"\n"))
	require.NoError(t, err)
	requireKeysNamed(t, c.Validate(), "aclConfigPath", "directory")

	yml := filepath.Join(dir, "plain_acl.yml")
	require.NoError(t, os.WriteFile(yml, []byte("accounts: []\n"), 0o600))
	c, err = Load(writeFile(t, "n.properties", "aclEnable=true\naclConfigPath="+yml+"\n"))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
}

func TestStandaloneControllerACL(t *testing.T) {
	path := controllerFile(t, "aclEnable=true\n")
	cc, err := LoadController(path)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(filepath.Dir(path), DefaultACLFileName), cc.AclConfigPath)
	requireKeysNamed(t, cc.Validate(), "aclConfigPath")
}

// TestACLKeysAreNotRemotelyUpdatable: an anonymous update must not be able
// to switch ACL off, open anonymous reads or point at another file.
func TestACLKeysAreNotRemotelyUpdatable(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "configBlackList=\n"))
	require.NoError(t, err)
	cc, err := LoadController(controllerFile(t, "configBlackList=\n"))
	require.NoError(t, err)
	for _, body := range []string{"aclEnable=false", "aclAnonymousRead=true", "aclConfigPath=/tmp/x.yml"} {
		_, err := c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
		_, err = c.ApplyControllerUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
		_, err = cc.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}
