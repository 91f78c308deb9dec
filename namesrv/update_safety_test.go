package namesrv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// restartChildEnv, when set to a -c path, makes TestUpdateCannotBrickRestart
// act as the restarted node: it starts from that file and stops.
const restartChildEnv = "RMQ_TEST_RESTART_FROM"

// startFileNode starts a node from a fresh -c file on a loopback port.
func startFileNode(t *testing.T) (*Server, string) {
	srv, path := startFileNodeNoStop(t)
	t.Cleanup(func() { stopServer(t, srv) })
	return srv, path
}

// startFileNodeNoStop is startFileNode; the caller stops the node.
func startFileNodeNoStop(t *testing.T) (*Server, string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "namesrv.properties")
	body := "bindAddress=127.0.0.1\nlistenPort=0\nkvConfigPath=" + filepath.Join(dir, "kv.json") + "\n"
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return startFromFile(t, path), path
}

// TestUpdateCannotBrickRestart (regression, from the attack review):
// UPDATE_NAMESRV_CONFIG accepted and persisted
// unRegisterBrokerQueueCapacity=2147483647 (Validate only asked for a
// positive value); the next start sized the unregistration channel with it
// (make(chan unregReq, 2^31-1), ~170 GB) and died with "fatal error:
// runtime: out of memory". Now every numeric key is bounded, so the update
// is refused; if an update is accepted, a node restarted from the persisted
// file (in a child process) must come up.
func TestUpdateCannotBrickRestart(t *testing.T) {
	if path := os.Getenv(restartChildEnv); path != "" {
		stopServer(t, startFromFile(t, path))
		return
	}
	srv, path := startFileNodeNoStop(t)
	resp := invoke(t, dial(t, srv), remoting.NewRequest(remoting.UpdateNamesrvConfig, nil,
		[]byte("unRegisterBrokerQueueCapacity=2147483647")))
	t.Logf("update answered code=%d remark=%q", resp.Code, resp.Remark)
	stopServer(t, srv)
	if resp.Code != remoting.Success {
		return // refused: nothing persisted, the node restarts
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUpdateCannotBrickRestart$", "-test.count=1")
	cmd.Env = append(os.Environ(), restartChildEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if len(out) > 2000 {
		out = out[:2000]
	}
	require.NoError(t, err, "a node restarted after an accepted update must come up:\n%s", out)
}

// TestUpdateCannotLiftMemoryCaps (regression, from the attack review): the
// per-connection pending-response cap, the server-wide partial-frame budget
// and the idle timeout that closes a connection stuck over its cap were
// accepted by UPDATE_NAMESRV_CONFIG at any positive value and persisted, so
// one request lifted them from the next restart on. They are black-listed
// now: code 16, whatever the value.
func TestUpdateCannotLiftMemoryCaps(t *testing.T) {
	srv, _ := startFileNode(t)
	c := dial(t, srv)
	for _, body := range []string{
		"serverChannelMaxPendingResponseBytes=9223372036854775807",
		"serverPartialFrameBudgetBytes=9223372036854775807",
		"serverChannelMaxIdleTimeSeconds=2147483647",
	} {
		resp := invoke(t, c, remoting.NewRequest(remoting.UpdateNamesrvConfig, nil, []byte(body)))
		t.Logf("%s -> code=%d remark=%q", body, resp.Code, resp.Remark)
		require.NotEqual(t, remoting.Success, resp.Code, "a remote update lifted a memory bound: %s", body)
		require.Equal(t, remoting.NoPermission, resp.Code, body)
	}
}

// TestUpdateCannotStopRouteService: an update of needWaitForService and
// waitSecondsForService on a running node (even with the longest wait,
// 600 s) does not make route lookups answer "name server not ready": the
// wait is fixed at start and latches open once passed (Java's
// ClientRequestProcessor stops checking once it has served a route), and
// the update takes effect at the next start. Read on every
// GET_ROUTEINFO_BY_TOPIC and measured from process start, it would refuse
// every lookup.
func TestUpdateCannotStopRouteService(t *testing.T) {
	srv, _ := startFileNode(t)
	c := dial(t, srv)
	for _, body := range []string{"needWaitForService=true\nwaitSecondsForService=2147483647",
		"needWaitForService=true\nwaitSecondsForService=600"} {
		resp := invoke(t, c, remoting.NewRequest(remoting.UpdateNamesrvConfig, nil, []byte(body)))
		t.Logf("update %q answered code=%d remark=%q", body, resp.Code, resp.Remark)
		req := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "TBW102"}, nil)
		resp = invoke(t, c, req)
		t.Logf("route lookup answered code=%d remark=%q", resp.Code, resp.Remark)
		require.NotEqual(t, "name server not ready", resp.Remark, "a running node stopped serving routes")
	}
}

// TestUpdateCannotMakeReadyzFail: an update of
// readyAfterBrokerRegistrationSeconds on a ready node does not make it
// unready (re-read by every /readyz probe it would, and a Kubernetes
// Service would drop the node for up to the new wait): the wait is fixed
// at start and latches once passed.
func TestUpdateCannotMakeReadyzFail(t *testing.T) {
	srv := startMetricsServer(t, 0)
	require.NoError(t, srv.Ready())
	resp := invoke(t, dial(t, srv), remoting.NewRequest(remoting.UpdateNamesrvConfig, nil,
		[]byte("readyAfterBrokerRegistrationSeconds=600")))
	t.Logf("update answered code=%d remark=%q", resp.Code, resp.Remark)
	require.NoError(t, srv.Ready(), "a ready node became unready after an update")
}

// TestStartupWaitLatches: a wait reports what remains after its start, none
// once passed, and none from then on even measured from a later start.
func TestStartupWaitLatches(t *testing.T) {
	w := newStartupWait(60)
	now := time.Now()
	require.Greater(t, w.left(now), 59*time.Second)
	require.Equal(t, 60, w.seconds())
	require.Zero(t, w.left(now.Add(-61*time.Second)))
	require.Zero(t, w.left(now), "a passed wait stays passed")
	var none *startupWait
	require.Zero(t, none.left(now))
}
