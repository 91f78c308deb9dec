package integration

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// TestBinaryHelpPrintsUsage: -h prints the flags and exits.
func TestBinaryHelpPrintsUsage(t *testing.T) {
	code, stdout, stderr := runBinary(t, "-h")
	usage := stdout + stderr
	for _, flag := range []string{"-c", "-p", "-n"} {
		require.Contains(t, usage, flag)
	}
	// Java's mqnamesrv -h exits 0; Go's flag package convention is 2.
	require.Contains(t, []int{0, 2}, code)
}

// TestBinaryPrintConfig: -p prints the effective config with the default
// port and exits 0 without opening anything.
func TestBinaryPrintConfig(t *testing.T) {
	code, stdout, _ := runBinary(t, "-p")
	require.Equal(t, 0, code)
	lines := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		lines[sc.Text()] = true
	}
	require.True(t, lines["listenPort=9876"], "no listenPort=9876 line in:\n%s", stdout)
	require.True(t, lines["bindAddress=0.0.0.0"], "no bindAddress=0.0.0.0 line in:\n%s", stdout)
}

// TestBinaryPrintConfigFromFile: -c with -p shows the file's values.
func TestBinaryPrintConfigFromFile(t *testing.T) {
	path := t.TempDir() + "/p.properties"
	writeProps(t, path, map[string]string{"listenPort": "19876", "orderMessageEnable": "true"})
	code, stdout, _ := runBinary(t, "-c", path, "-p")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "listenPort=19876\n")
	require.Contains(t, stdout, "orderMessageEnable=true\n")
}

// TestBinarySIGTERMWithClientConnected: SIGTERM while a client and a
// broker are connected → exit 0, and the client's connection is closed.
func TestBinarySIGTERMWithClientConnected(t *testing.T) {
	p := startBinary(t, nil)
	b := newBroker(t, fakebroker.Config{NameServers: []string{p.addr}})
	require.NoError(t, b.RegisterAll(ctxT(t)))
	c := dialNS(t, p.addr)
	resp, err := c.Invoke(ctxT(t), remoting.NewRequest(remoting.GetAllTopicListFromNameserver, nil, nil))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code)

	require.Equal(t, 0, p.signal(syscall.SIGTERM))
	select {
	case <-c.Done():
	case <-ctxT(t).Done():
		t.Fatal("client connection still open after the namesrv exited")
	}
}

// TestBinaryKill9KeepsKVDropsRoutes: a KV value put over the wire survives
// kill -9; routes do not, until the broker registers again.
func TestBinaryKill9KeepsKVDropsRoutes(t *testing.T) {
	p := startBinary(t, nil)
	b := newBroker(t, fakebroker.Config{
		NameServers: []string{p.addr},
		Topics:      []fakebroker.TopicConfig{fakebroker.Topic("KillTopic", 4)},
	})
	require.NoError(t, b.RegisterAll(ctxT(t)))
	c := dialNS(t, p.addr)
	putKV(t, c, "ORDER_TOPIC_CONFIG", "KillTopic", "broker-a:4")
	require.NoError(t, routeHasBroker(ctxT(t), c, "KillTopic", b))

	p.kill()
	p.restart()

	c2 := dialNS(t, p.addr)
	code, value := getKV(t, c2, "ORDER_TOPIC_CONFIG", "KillTopic")
	require.Equal(t, remoting.Success, code)
	require.Equal(t, "broker-a:4", value)
	require.NoError(t, routeGone(ctxT(t), c2, "KillTopic"))

	// The broker's old connection died with the process; Register redials.
	_, err := b.Register(ctxT(t), p.addr)
	require.NoError(t, err)
	require.NoError(t, routeHasBroker(ctxT(t), c2, "KillTopic", b))
}

// TestDefaultBuildHasNoRaft: the default build of cmd/namesrv does not
// link hashicorp/raft (the controller is behind a build tag).
func TestDefaultBuildHasNoRaft(t *testing.T) {
	goTool := goOnPath(t)
	out, err := exec.Command(goTool, "list", "-tags=", "-deps", "github.com/rmqgo/nameserver/cmd/namesrv").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "github.com/rmqgo/nameserver/namesrv\n", "go list output looks wrong")
	for _, dep := range strings.Fields(string(out)) {
		require.False(t, strings.HasPrefix(dep, "github.com/hashicorp/raft"), "default build depends on %s", dep)
	}
}
