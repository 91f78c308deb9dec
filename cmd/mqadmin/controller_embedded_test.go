//go:build embedded_controller

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// startController starts a one-node controller on loopback with extra
// properties lines and waits until it leads; it returns its remoting
// address.
func startController(t *testing.T, extra ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	logger := raftstoretest.TestLogger(t, "ctl")
	tr, err := raftstore.NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	dir := t.TempDir()
	props := strings.Join([]string{
		"controllerDLegerGroup=group1",
		"controllerDLegerPeers=n0-" + ln.Addr().String(),
		"controllerRaftPeers=n0-" + string(tr.LocalAddr()),
		"controllerDLegerSelfId=n0",
		"controllerStorePath=" + filepath.Join(dir, "store"),
		"configStorePath=" + filepath.Join(dir, "controller.properties"),
	}, "\n") + "\n" + strings.Join(extra, "\n") + "\n"
	path := filepath.Join(dir, "controller.properties")
	require.NoError(t, os.WriteFile(path, []byte(props), 0o600))
	cfg, err := config.LoadController(path)
	require.NoError(t, err)
	ctl, err := controller.New(cfg, logger, controller.WithListener(ln), controller.WithRaftTransport(tr))
	require.NoError(t, err)
	require.NoError(t, ctl.Start())
	t.Cleanup(func() { require.NoError(t, ctl.Shutdown(context.Background())) })
	poll.Until(t, "ctl.IsReadyLeader", 15*time.Second, 10*time.Millisecond, poll.True(ctl.IsReadyLeader))
	return ctl.Addr()
}

// ctlBroker plays a controller-mode broker over one kept-open connection.
type ctlBroker struct {
	t    *testing.T
	c    *remoting.Client
	id   string
	addr string
}

func newCtlBroker(t *testing.T, ctl string, id int64) *ctlBroker {
	c, err := remoting.Dial(testCtx(t), ctl, remoting.ClientOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return &ctlBroker{t: t, c: c, id: strconv.FormatInt(id, 10), addr: fmt.Sprintf("127.0.0.1:%d", 30910+id)}
}

func (b *ctlBroker) call(code int32, ext map[string]string, body string) *remoting.Command {
	b.t.Helper()
	resp, err := b.c.Invoke(testCtx(b.t), remoting.NewRequest(code, ext, []byte(body)))
	require.NoError(b.t, err)
	return resp
}

func (b *ctlBroker) ok(code int32, ext map[string]string, body string) {
	b.t.Helper()
	resp := b.call(code, ext, body)
	require.Equal(b.t, remoting.Success, resp.Code, resp.Remark)
}

// join applies the id, registers and heartbeats (docs/controller.md section 7
// steps 3, 4, 7).
func (b *ctlBroker) join() {
	id := map[string]string{"clusterName": "DefaultCluster", "brokerName": "broker-a"}
	b.ok(remoting.ControllerApplyBrokerID, with(id, "appliedBrokerId", b.id, "registerCheckCode", b.addr+";1"), "")
	b.ok(remoting.ControllerRegisterBroker, with(id, "brokerId", b.id, "brokerAddress", b.addr), "")
	b.ok(remoting.BrokerHeartbeat, with(id, "brokerAddr", b.addr, "brokerId", b.id, "epoch", "0",
		"maxOffset", "100", "confirmOffset", "100", "heartbeatTimeoutMills", "60000"), "")
}

func with(base map[string]string, kv ...string) map[string]string {
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestControllerCommandsAgainstRealController(t *testing.T) {
	ctl := startController(t)
	out := requireOK(t, mqadmin(t, "getControllerMetaData", "-a", ctl))
	require.Contains(t, out, "#ControllerGroup\tgroup1\n#ControllerLeaderId\tn0\n#ControllerLeaderAddress\t"+ctl+"\n")

	requireOK(t, mqadmin(t, "updateControllerConfig", "-a", ctl, "-k", "enableElectUncleanMaster", "-v", "true"))
	out = requireOK(t, mqadmin(t, "getControllerConfig", "-a", ctl))
	require.Contains(t, out, fmt.Sprintf("%-50s=  %s\n", "enableElectUncleanMaster", "true"))

	b1, b2 := newCtlBroker(t, ctl, 1), newCtlBroker(t, ctl, 2)
	b1.join()
	b2.join()
	b1.ok(remoting.ControllerElectMaster, map[string]string{"clusterName": "DefaultCluster",
		"brokerName": "broker-a", "brokerId": "1", "designateElect": "false", "invokeTime": "0"}, "")
	b1.ok(remoting.ControllerAlterSyncStateSet, map[string]string{"brokerName": "broker-a",
		"masterBrokerId": "1", "masterEpoch": "1", "invokeTime": "0"}, `{"syncStateSet":[1,2],"syncStateSetEpoch":1}`)

	out = requireOK(t, mqadmin(t, "getSyncStateSet", "-a", ctl, "-b", "broker-a"))
	require.Contains(t, out, "#MasterBrokerId\t1\n#MasterAddr\t"+b1.addr+"\n#MasterEpoch\t1\n#SyncStateSetEpoch\t2\n#SyncStateSetNums\t2\n")

	out = requireOK(t, mqadmin(t, "electMaster", "-a", ctl, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2"))
	require.Contains(t, out, "#BrokerMasterAddr\t"+b2.addr+"\n#MasterEpoch\t2\n")
	require.Contains(t, out, "\t#Broker\t1\t"+b1.addr+"\n\t#Broker\t2\t"+b2.addr+"\n")

	r := mqadmin(t, "cleanBrokerMetadata", "-a", ctl, "-bn", "broker-a", "-c", "DefaultCluster", "-b", "1")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "is still alive, clean up failure")
	requireOK(t, mqadmin(t, "cleanBrokerMetadata", "-a", ctl, "-bn", "broker-a", "-l"))
	require.Empty(t, requireOK(t, mqadmin(t, "getSyncStateSet", "-a", ctl, "-b", "broker-a")))
}

func TestDiagnoseAgainstRealController(t *testing.T) {
	ctl, ns := startController(t), startNS(t)
	startBroker(t, topicBroker("broker-a"), ns)
	b1 := newCtlBroker(t, ctl, 1)
	b1.join()
	d := diagnose(t, exitOK, "-n", ns, "-t", "broker-a", "-a", ctl)
	for _, f := range d.Findings {
		require.NotContains(t, []string{admin.FindingControllerNoLeader, admin.FindingControllerUnreachable}, f.Code)
	}
	f := finding(t, d, admin.FindingControllerNoMaster)
	require.Contains(t, f.Evidence[0], "masterEpoch=0")
}
