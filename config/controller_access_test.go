package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// accountsFile writes an accounts file with one account of each role.
func accountsFile(t *testing.T) string {
	t.Helper()
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(yml, []byte(`accounts:
  - {accessKey: ctlPoller, secretKey: poller-secret}
  - {accessKey: ctlBroker, secretKey: broker-secret, role: broker}
  - {accessKey: ctlAdmin, secretKey: admin-secret, admin: true}
`), 0o600))
	return yml
}

// TestControllerAccessKeyMustNameAnAccount: with aclEnable the key must
// name a read account of aclConfigPath (TestControllerAccessKeyReadRoleOnly);
// not set is valid (the poll goes unsigned).
func TestControllerAccessKeyMustNameAnAccount(t *testing.T) {
	yml := accountsFile(t)
	for _, key := range []string{"", "ctlPoller"} {
		cc, err := LoadController(controllerFile(t, "aclEnable=true\naclConfigPath="+yml+"\ncontrollerAccessKey="+key+"\n"))
		require.NoError(t, err)
		require.NoError(t, cc.Validate(), key)
		require.Equal(t, key, cc.ControllerAccessKey)
	}
	cc, err := LoadController(controllerFile(t, "aclEnable=true\naclConfigPath="+yml+"\ncontrollerAccessKey=nobody1\n"))
	require.NoError(t, err)
	err = cc.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	requireKeysNamed(t, err, "controllerAccessKey (nobody1) must be an account of aclConfigPath ("+yml+")")
	require.Equal(t, 1, countLines(err))
}

// TestControllerAccessKeyReadRoleOnly: the account must have exactly the
// read role. The poll is fieldless, so its signature covers the access key
// alone: sent every poll interval to every peer, a captured one is that
// account's signature of any request without fields or body, and with a
// broker or admin account it would be one for broker or admin requests.
func TestControllerAccessKeyReadRoleOnly(t *testing.T) {
	yml := accountsFile(t)
	for key, role := range map[string]string{"ctlBroker": "broker", "ctlAdmin": "admin"} {
		cc, err := LoadController(controllerFile(t, "aclEnable=true\naclConfigPath="+yml+"\ncontrollerAccessKey="+key+"\n"))
		require.NoError(t, err)
		err = cc.Validate()
		require.ErrorIs(t, err, ErrInvalid)
		requireKeysNamed(t, err, "controllerAccessKey ("+key+") must have the read role (it has "+role+")")
		require.Equal(t, 1, countLines(err))
	}
}

// TestControllerAccessKeyIgnoredWithoutACL: with aclEnable=false the key
// is not checked (as aclConfigPath is not): no file is needed.
func TestControllerAccessKeyIgnoredWithoutACL(t *testing.T) {
	cc, err := LoadController(controllerFile(t, "aclConfigPath=/nonexistent/plain_acl.yml\ncontrollerAccessKey=nobody1\n"))
	require.NoError(t, err)
	require.NoError(t, cc.Validate())
}

// TestControllerAccessKeyBadFileLeftToACL: a file that does not parse is
// reported by package acl at startup (naming aclConfigPath), not as a
// controllerAccessKey error.
func TestControllerAccessKeyBadFileLeftToACL(t *testing.T) {
	yml := writeFile(t, "plain_acl.yml", "accounts: [{accessKey: short}]\n")
	cc, err := LoadController(controllerFile(t, "aclEnable=true\naclConfigPath="+yml+"\ncontrollerAccessKey=ctlPoller\n"))
	require.NoError(t, err)
	require.NoError(t, cc.Validate())
}

// TestControllerAccessKeyNotUpdatable: the key is the credential the node
// presents to its peers, as the controllerRaftTls* files are on the Raft
// transport: no remote update changes it (UPDATE_CONTROLLER_CONFIG; the
// embedded controller: TestEmbeddedControllerAccessKeyNotUpdatable), with
// ACL on or off. With ACL off, an anonymous update would otherwise
// plant the account the node signs with once ACL is switched on (not
// checked while it is off). It is rendered when set.
func TestControllerAccessKeyNotUpdatable(t *testing.T) {
	yml := accountsFile(t)
	for _, acl := range []string{"aclEnable=true", "aclEnable=false"} {
		cc, err := LoadController(controllerFile(t, acl+"\naclConfigPath="+yml+"\n"))
		require.NoError(t, err)
		require.NoError(t, cc.Validate())
		require.NotContains(t, string(cc.Render()), "controllerAccessKey", "omitted when empty")
		require.True(t, cc.IsBlackListed("controllerAccessKey"))
		_, err = cc.ApplyUpdate([]byte("controllerAccessKey=ctlPoller"))
		require.ErrorIs(t, err, ErrBlackListed, acl)
	}
	cc, err := LoadController(controllerFile(t, "aclEnable=true\naclConfigPath="+yml+"\ncontrollerAccessKey=ctlPoller\n"))
	require.NoError(t, err)
	require.Equal(t, "ctlPoller", mustParse(t, cc.Render())["controllerAccessKey"])
}
