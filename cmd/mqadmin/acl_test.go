package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/remoting"
)

// aclAccounts has an admin and a read-only account.
const aclAccounts = `
accounts:
  - {accessKey: mqAdmin01, secretKey: mqAdminSecret, admin: true}
  - {accessKey: mqReader01, secretKey: mqReaderSecret}
  - {accessKey: mqBroker01, secretKey: mqBrokerSecret, role: broker}
`

// startACLNS starts a NameServer with aclEnable=true; its address and the
// accounts file's directory.
func startACLNS(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain_acl.yml"), []byte(aclAccounts), 0o600))
	srv := namesrvtest.Start(t, namesrvtest.WithConfig(func(c *config.NamesrvConfig) {
		c.AclEnable, c.AclConfigPath = true, filepath.Join(dir, "plain_acl.yml")
	}))
	return srv.Addr().String(), dir
}

// TestMutatingCommandsNeedAdminKeys runs every mutating NameServer command
// without keys, with a read-only account and with an admin account
// (--ak/--sk): only the last succeeds; reads need no keys. The broker
// registers with a broker account.
func TestMutatingCommandsNeedAdminKeys(t *testing.T) {
	t.Setenv("ROCKETMQ_HOME", "")
	ns, _ := startACLNS(t)
	bc := topicBroker("broker-a")
	bc.Sign = func(req *remoting.Command) { acl.Sign(req, "mqBroker01", "mqBrokerSecret", "") }
	startBroker(t, bc, ns)
	cmds := [][]string{
		{"updateKvConfig", "-s", "NS", "-k", "key", "-v", "value"},
		{"deleteKvConfig", "-s", "NS", "-k", "key"},
		{"updateOrderConf", "-t", "T", "-m", "put", "-v", "broker-a:4"},
		{"updateOrderConf", "-t", "T", "-m", "delete"},
		{"updateNamesrvConfig", "-k", "enableAllTopicList", "-v", "true"},
		{"wipeWritePerm", "-b", "broker-a"},
		{"addWritePerm", "-b", "broker-a"},
		{"deleteTopic", "-t", "T", "-c", "DefaultCluster"},
	}
	for _, args := range cmds {
		base := append(args, "-n", ns)
		for _, keys := range [][]string{nil, {"--ak", "mqReader01", "--sk", "mqReaderSecret"},
			{"--ak", "mqAdmin01", "--sk", "wrongSecret"}} {
			r := mqadmin(t, append(base, keys...)...)
			require.Equal(t, exitFail, r.code, "%v %v: %s%s", args, keys, r.out, r.errOut)
			// deleteTopic reads the cluster first (code 106), where a
			// wrong secret is already refused as a signature mismatch
			require.Regexp(t, "admin permission|signature mismatch", r.errOut, "%v %v", args, keys)
		}
		requireOK(t, mqadmin(t, append(base, "--ak", "mqAdmin01", "--sk", "mqAdminSecret")...))
	}
	requireOK(t, mqadmin(t, "getNamesrvConfig", "-n", ns))
	requireOK(t, mqadmin(t, "topicRoute", "-n", ns, "-t", "broker-a"))
}

// TestCredentialsFromEnvAndToolsFile: $ROCKETMQ_ACCESS_KEY/SECRET_KEY, or
// else $ROCKETMQ_HOME/conf/tools.yml (Java's mqadmin), sign too; one key
// without the other is a usage error.
func TestCredentialsFromEnvAndToolsFile(t *testing.T) {
	ns, _ := startACLNS(t)
	put := []string{"updateKvConfig", "-n", ns, "-s", "NS", "-k", "key", "-v", "value"}
	home := t.TempDir()
	t.Setenv("ROCKETMQ_HOME", home)
	require.Equal(t, exitFail, mqadmin(t, put...).code)

	t.Setenv(envAccessKey, "mqAdmin01")
	require.Equal(t, exitUsage, mqadmin(t, put...).code)
	t.Setenv(envSecretKey, "mqAdminSecret")
	requireOK(t, mqadmin(t, put...))

	t.Setenv(envAccessKey, "")
	t.Setenv(envSecretKey, "")
	require.NoError(t, os.MkdirAll(filepath.Join(home, "conf"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, "conf", "tools.yml"),
		[]byte("accessKey: mqAdmin01\nsecretKey: mqAdminSecret\n"), 0o600))
	requireOK(t, mqadmin(t, put...))
}
