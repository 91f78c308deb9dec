package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testcerts"
)

// raftTLSProps returns the four keys for files of a fresh CA and leaf.
func raftTLSProps(t *testing.T) (string, testcerts.Files) {
	ca := testcerts.NewCA(t, "raft-ca")
	f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n0", ca)
	return "controllerRaftTlsEnable=true\ncontrollerRaftTlsCertPath=" + f.Cert +
		"\ncontrollerRaftTlsKeyPath=" + f.Key + "\ncontrollerRaftTlsTrustCertPath=" + f.CA + "\n", f
}

func TestRaftTLSOffByDefault(t *testing.T) {
	ours := mustParse(t, Default().ControllerProperties())
	require.Equal(t, "false", ours["controllerRaftTlsEnable"])
	cc, err := LoadController(controllerFile(t, "controllerRaftTlsCertPath=/nonexistent\n"))
	require.NoError(t, err)
	require.NoError(t, cc.Validate(), "paths are not checked while TLS is off")
}

func TestRaftTLSValidFiles(t *testing.T) {
	props, f := raftTLSProps(t)
	cc, err := LoadController(controllerFile(t, props))
	require.NoError(t, err)
	require.NoError(t, cc.Validate())
	require.True(t, cc.ControllerRaftTlsEnable)
	require.Equal(t, f.Key, cc.ControllerRaftTlsKeyPath)
}

func TestRaftTLSEnableNeedsEveryPath(t *testing.T) {
	cc, err := LoadController(controllerFile(t, "controllerRaftTlsEnable=true\n"))
	require.NoError(t, err)
	err = cc.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	requireKeysNamed(t, err, "controllerRaftTlsCertPath is missing", "controllerRaftTlsKeyPath is missing",
		"controllerRaftTlsTrustCertPath is missing")
	require.Equal(t, 3, countLines(err))
}

func TestRaftTLSBadFilesNameKeyAndFile(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	require.NoError(t, os.WriteFile(garbage, []byte("not a certificate"), 0o600))
	missing := filepath.Join(dir, "missing.key")
	cc, err := LoadController(controllerFile(t, "controllerRaftTlsEnable=true\ncontrollerRaftTlsCertPath="+garbage+
		"\ncontrollerRaftTlsKeyPath="+missing+"\ncontrollerRaftTlsTrustCertPath="+garbage+"\n"))
	require.NoError(t, err)
	err = cc.Validate()
	t.Log(err)
	requireKeysNamed(t, err, "controllerRaftTlsCertPath ("+garbage+")", "controllerRaftTlsKeyPath ("+missing+")",
		"controllerRaftTlsTrustCertPath ("+garbage+")")
	require.Equal(t, 3, countLines(err))
}

func TestRaftTLSMismatchedKeyNamed(t *testing.T) {
	props, _ := raftTLSProps(t)
	_, other := raftTLSProps(t)
	cc, err := LoadController(controllerFile(t, props+"controllerRaftTlsKeyPath="+other.Key+"\n"))
	require.NoError(t, err)
	err = cc.Validate()
	requireKeysNamed(t, err, "controllerRaftTlsKeyPath ("+other.Key+")", "does not match")
	require.Equal(t, 1, countLines(err))
}

func TestRaftTLSKeysNotRemotelyUpdatable(t *testing.T) {
	props, f := raftTLSProps(t)
	bodies := []string{"controllerRaftTlsEnable=false", "controllerRaftTlsEnable=true",
		"controllerRaftTlsCertPath=" + f.Cert, "controllerRaftTlsKeyPath=" + f.Key,
		"controllerRaftTlsTrustCertPath=" + f.CA}
	cc, err := LoadController(controllerFile(t, "configBlackList=\n"+props))
	require.NoError(t, err)
	c, err := Load(writeFile(t, "n.properties", "configBlackList=\n"))
	require.NoError(t, err)
	for _, body := range bodies {
		_, err := cc.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
		_, err = c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
		_, err = c.ApplyControllerUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}
