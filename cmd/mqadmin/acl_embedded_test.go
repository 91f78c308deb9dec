//go:build embedded_controller

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/remoting"
)

// signedCtlBroker is a controller-mode broker signing with a broker account.
func signedCtlBroker(t *testing.T, ctl string, id int64, ak, sk string) *ctlBroker {
	c, err := remoting.Dial(testCtx(t), ctl, remoting.ClientOptions{
		Sign: func(req *remoting.Command) { acl.Sign(req, ak, sk, "") }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return &ctlBroker{t: t, c: c, id: strconv.FormatInt(id, 10), addr: "127.0.0.1:" + strconv.FormatInt(30910+id, 10)}
}

// TestControllerACL: broker codes (apply id, register, heartbeat, a
// broker's own election) need a broker account; mqadmin's
// updateControllerConfig, electMaster (designateElect) and
// cleanBrokerMetadata need admin keys; reads stay anonymous.
func TestControllerACL(t *testing.T) {
	t.Setenv("ROCKETMQ_HOME", "")
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(yml, []byte(aclAccounts), 0o600))
	ctl := startController(t, "aclEnable=true", "aclConfigPath="+yml)

	anon := newCtlBroker(t, ctl, 3)
	resp := anon.call(remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "DefaultCluster",
		"brokerName": "broker-a", "appliedBrokerId": "3", "registerCheckCode": anon.addr + ";1"}, "")
	require.Equal(t, remoting.NoPermission, resp.Code, resp.Remark)
	resp = anon.call(remoting.BrokerHeartbeat, map[string]string{"clusterName": "DefaultCluster",
		"brokerName": "broker-a", "brokerAddr": anon.addr, "brokerId": "3"}, "")
	require.Equal(t, remoting.NoPermission, resp.Code, resp.Remark)

	b1 := signedCtlBroker(t, ctl, 1, "mqBroker01", "mqBrokerSecret")
	b2 := signedCtlBroker(t, ctl, 2, "mqBroker01", "mqBrokerSecret")
	b1.join()
	b2.join()
	elect := map[string]string{"clusterName": "DefaultCluster", "brokerName": "broker-a", "brokerId": "1",
		"designateElect": "false", "invokeTime": "0"}
	b1.ok(remoting.ControllerElectMaster, elect, "")
	resp = b1.call(remoting.ControllerElectMaster, with(elect, "designateElect", "true"), "")
	require.Equal(t, remoting.NoPermission, resp.Code, "a broker account may not designate a master")

	admin := []string{"--ak", "mqAdmin01", "--sk", "mqAdminSecret"}
	for _, args := range [][]string{
		{"updateControllerConfig", "-a", ctl, "-k", "enableElectUncleanMaster", "-v", "true"},
		{"electMaster", "-a", ctl, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2"},
	} {
		for _, keys := range [][]string{nil, {"--ak", "mqBroker01", "--sk", "mqBrokerSecret"}} {
			r := mqadmin(t, append(args, keys...)...)
			require.Equal(t, exitFail, r.code, "%v %v: %s%s", args, keys, r.out, r.errOut)
			require.Contains(t, r.errOut, "admin permission")
		}
		requireOK(t, mqadmin(t, append(args, admin...)...))
	}
	requireOK(t, mqadmin(t, "getControllerMetaData", "-a", ctl))
	require.NoError(t, b1.c.Close())
	require.NoError(t, b2.c.Close())
	clean := []string{"cleanBrokerMetadata", "-a", ctl, "-bn", "broker-a", "-l"}
	r := mqadmin(t, clean...)
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "admin permission")
	requireOK(t, mqadmin(t, append(clean, admin...)...))
}
