package namesrv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// attackChildEnv, when set to a -c path, makes TestUpdateCannotBrickRestart
// act as the restarted node: it starts from that file and stops.
const attackChildEnv = "RMQ_TEST_RESTART_FROM"

// startAttackNode starts a node from a fresh -c file on a loopback port.
func startAttackNode(t *testing.T) (*Server, string) {
	srv, path := startAttackNodeNoStop(t)
	t.Cleanup(func() { stopServer(t, srv) })
	return srv, path
}

// startAttackNodeNoStop is startAttackNode; the caller stops the node.
func startAttackNodeNoStop(t *testing.T) (*Server, string) {
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
	if path := os.Getenv(attackChildEnv); path != "" {
		stopServer(t, startFromFile(t, path))
		return
	}
	srv, path := startAttackNodeNoStop(t)
	resp := invoke(t, dial(t, srv), remoting.NewRequest(remoting.UpdateNamesrvConfig, nil,
		[]byte("unRegisterBrokerQueueCapacity=2147483647")))
	t.Logf("update answered code=%d remark=%q", resp.Code, resp.Remark)
	stopServer(t, srv)
	if resp.Code != remoting.Success {
		return // refused: nothing persisted, the node restarts
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUpdateCannotBrickRestart$", "-test.count=1")
	cmd.Env = append(os.Environ(), attackChildEnv+"="+path)
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
	srv, _ := startAttackNode(t)
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

// TestAttackUpdateStopsRouteService: needWaitForService and
// waitSecondsForService are read on every GET_ROUTEINFO_BY_TOPIC, measured
// from process start, so an update long after start makes every route lookup
// answer "name server not ready" for 68 years on the running node (Java's
// ClientRequestProcessor latches readiness once the wait has passed).
func TestAttackUpdateStopsRouteService(t *testing.T) {
	srv, _ := startAttackNode(t)
	c := dial(t, srv)
	resp := invoke(t, c, remoting.NewRequest(remoting.UpdateNamesrvConfig, nil,
		[]byte("needWaitForService=true\nwaitSecondsForService=2147483647")))
	t.Logf("update answered code=%d remark=%q", resp.Code, resp.Remark)
	req := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "TBW102"}, nil)
	resp = invoke(t, c, req)
	t.Logf("route lookup answered code=%d remark=%q", resp.Code, resp.Remark)
	require.NotEqual(t, "name server not ready", resp.Remark, "a running node stopped serving routes")
}
