//go:build embedded_controller

package controllertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// memberGroup is the procCluster (three cmd/controller processes) whose
// membership the test changes with cmd/mqadmin, as an operator would.
type memberGroup struct {
	*procCluster
	admin string
}

func newMemberGroup(t *testing.T) *memberGroup {
	return &memberGroup{procCluster: startProcCluster(t), admin: binary(t, "mqadmin")}
}

func nodeID(i int) string { return fmt.Sprintf("n%d", i) }

// addNode gives node len(addrs) new addresses and a new directory; it
// starts nothing.
func (g *memberGroup) addNode() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := len(g.addrs)
	g.addrs, g.raft = append(g.addrs, freeAddr(g.t)), append(g.raft, freeAddr(g.t))
	g.paths = append(g.paths, filepath.Join(g.t.TempDir(), nodeID(i), "controller.properties"))
	g.procs = append(g.procs, nil)
	return i
}

// restartWith (re)writes node i's peer lists to name members (the Java
// habit: every node's lists say who the group is) and starts it.
func (g *memberGroup) restartWith(i int, members []int) {
	var peers, raftPeers []string
	for _, m := range members {
		peers = append(peers, nodeID(m)+"-"+g.addrs[m])
		raftPeers = append(raftPeers, nodeID(m)+"-"+g.raft[m])
	}
	writeProps(g.t, filepath.Dir(g.paths[i]), nodeID(i), strings.Join(peers, ";"), strings.Join(raftPeers, ";"),
		append([]string{"bindAddress=127.0.0.1"}, fastProps...))
	g.start(i)
}

// stop sends sig to node i (SIGKILL: exit -1, SIGTERM: 0).
func (g *memberGroup) stop(i int, sig syscall.Signal, code int) {
	require.Equal(g.t, code, g.proc(i).signal(sig))
	g.mu.Lock()
	g.procs[i] = nil
	g.mu.Unlock()
}

// running is the broker-facing addresses of the running nodes.
func (g *memberGroup) running() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for i, p := range g.procs {
		if p != nil {
			out = append(out, g.addrs[i])
		}
	}
	return out
}

// ready waits for a ready leader among the running nodes; its index.
func (g *memberGroup) ready() int {
	addrs := g.running()
	return slices.Index(g.addrs, addrs[awaitLeader(g.t, addrs...)])
}

// mqadmin runs cmd/mqadmin with -a naming the running nodes.
func (g *memberGroup) mqadmin(args ...string) (string, error) {
	args = append([]string{args[0], "-a", strings.Join(g.running(), ";")}, args[1:]...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, g.admin, args...).CombinedOutput()
	g.t.Logf("mqadmin %s:\n%s", strings.Join(args, " "), out)
	return string(out), err
}

func (g *memberGroup) members() wire.MembersBody {
	out, err := g.mqadmin("listControllerMembers", "--json")
	require.NoError(g.t, err)
	var m wire.MembersBody
	require.NoError(g.t, json.Unmarshal([]byte(out), &m))
	return m
}

// leaderWatch polls the running nodes for a ready leader and keeps, per
// step, the longest time no node answered as one.
type leaderWatch struct {
	g     *memberGroup
	mu    sync.Mutex
	step  string
	addrs []string // every address ever used when the step began
	steps []string
	worst map[string]time.Duration
	stop  chan struct{}
	done  chan struct{}
}

func (g *memberGroup) watch() *leaderWatch {
	w := &leaderWatch{g: g, worst: map[string]time.Duration{}, stop: make(chan struct{}), done: make(chan struct{})}
	w.mark("first election")
	go w.run()
	return w
}

// mark begins a step; the addresses to poll are read from the group then
// (a killed node's does not answer).
func (w *leaderWatch) mark(step string) {
	w.g.mu.Lock()
	addrs := slices.Clone(w.g.addrs)
	w.g.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.step, w.addrs = step, addrs
	w.steps = append(w.steps, step)
	w.worst[step] = 0
}

func (w *leaderWatch) run() {
	defer close(w.done)
	last := time.Now()
	var addrs []string
	for {
		select {
		case <-w.stop:
			return
		case <-time.After(20 * time.Millisecond):
		}
		w.mu.Lock()
		addrs = w.addrs
		w.mu.Unlock()
		if slices.ContainsFunc(addrs, answersAsLeader) {
			last = time.Now()
			continue
		}
		w.mu.Lock()
		w.worst[w.step] = max(w.worst[w.step], time.Since(last))
		w.mu.Unlock()
	}
}

// report stops the watch and logs each step's leaderless time.
func (w *leaderWatch) report(t *testing.T) map[string]time.Duration {
	close(w.stop)
	<-w.done
	for _, s := range w.steps {
		t.Logf("leaderless time, %-44s %v", s+":", w.worst[s].Round(time.Millisecond))
	}
	return w.worst
}

// applyID writes broker set name with id 1 through the leader (1013).
func applyID(t *testing.T, addr, name string) {
	t.Helper()
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
		if err != nil {
			return false
		}
		defer c.Close()
		resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerApplyBrokerID, map[string]string{
			"clusterName": "C", "brokerName": name, "appliedBrokerId": "1",
			"registerCheckCode": "127.0.0.1:10911;" + strconv.FormatInt(time.Now().UnixMilli(), 10)}, nil))
		return err == nil && resp.Code == remoting.Success
	}, waitLimit, 50*time.Millisecond)
}

// holdsID reports whether the leader at addr has set name with id 1.
func holdsID(t *testing.T, addr, name string) bool {
	id, ok, err := idReader(t, addr)(name)
	require.NoError(t, err)
	return ok && id == "1"
}

// driftOf is the raftMembersDrift field of addr's 1005; ok is false when
// addr does not answer.
func driftOf(addr string) (drift string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	if err != nil {
		return "", false
	}
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil))
	if err != nil || resp.Code != remoting.Success {
		return "", false
	}
	return resp.ExtFields["raftMembersDrift"], true
}

// TestProcessMemberReplacedThenAnotherLost: three cmd/controller
// processes; a follower dies for good. mqadmin removes it, a machine at
// new addresses starts with an empty store and is added as a non-voter,
// promoted once caught up; then the leader is killed too and the two
// left still elect a leader that holds every write. Each step's
// leaderless time is logged. The survivors' unchanged peer lists now
// differ from the membership: 1005 says so until a node restarts with
// edited lists (the Java habit, done after the membership change).
// RMQ_TEST_LONG=1 then moves a node to a new Raft port with its data
// directory and loses another node again.
func TestProcessMemberReplacedThenAnotherLost(t *testing.T) {
	g := newMemberGroup(t)
	w := g.watch()
	leader := g.ready()
	applyID(t, g.addrs[leader], "before")
	dead := (leader + 1) % 3

	w.mark(fmt.Sprintf("kill a follower (%s)", nodeID(dead)))
	g.stop(dead, syscall.SIGKILL, -1)
	g.ready()

	w.mark("removeControllerMember " + nodeID(dead))
	_, err := g.mqadmin("removeControllerMember", "-i", nodeID(dead))
	require.NoError(t, err)

	fresh := g.addNode()
	w.mark("start n3 empty, addControllerMember n3")
	survivors := slices.DeleteFunc([]int{0, 1, 2, fresh}, func(i int) bool { return i == dead })
	g.restartWith(fresh, survivors)
	began := time.Now()
	out, err := g.mqadmin("addControllerMember", "-i", "n3", "-r", g.raft[fresh])
	require.NoError(t, err)
	t.Logf("addControllerMember to promotion: %v", time.Since(began).Round(time.Millisecond))
	require.Contains(t, out, "n3 promoted to voter")
	m := g.members()
	require.Len(t, m.Members, 3)
	for _, s := range m.Members {
		require.True(t, s.Voter && s.Reachable, "%+v", s)
		require.NotEqual(t, nodeID(dead), s.ID)
	}
	applyID(t, g.addrs[g.ready()], "replaced")
	drift, ok := driftOf(g.addrs[survivors[0]])
	require.True(t, ok)
	require.Contains(t, drift, "not configured: n3", "the unchanged lists differ")

	edited := survivors[0]
	w.mark("restart " + nodeID(edited) + " with edited lists (Java habit)")
	g.stop(edited, syscall.SIGTERM, 0)
	g.restartWith(edited, survivors)
	require.Eventually(t, func() bool {
		drift, ok := driftOf(g.addrs[edited])
		return ok && drift == ""
	}, waitLimit, 50*time.Millisecond, "lists edited to the membership: no drift")

	lost := g.ready()
	if lost == fresh {
		lost = survivors[0]
	}
	w.mark("kill " + nodeID(lost) + " (leader unless n3 led)")
	g.stop(lost, syscall.SIGKILL, -1)
	now := g.ready()
	applyID(t, g.addrs[now], "after")
	for _, name := range []string{"before", "replaced", "after"} {
		require.True(t, holdsID(t, g.addrs[now], name), name)
	}
	if os.Getenv("RMQ_TEST_LONG") == "1" {
		g.moveAndLoseAnother(w, lost, survivors)
	}
	w.report(t)
}

// moveAndLoseAnother (long form): the killed node comes back with its data
// directory at a new Raft port once mqadmin moved it, and its lists
// (naming the new port) match the membership once it caught up; then
// another node dies and the group still has a leader.
func (g *memberGroup) moveAndLoseAnother(w *leaderWatch, moved int, members []int) {
	t := g.t
	w.mark("moveControllerMember " + nodeID(moved) + ", restart it there")
	g.raft[moved] = freeAddr(t)
	_, err := g.mqadmin("moveControllerMember", "-i", nodeID(moved), "-r", g.raft[moved])
	require.NoError(t, err)
	g.restartWith(moved, members)
	require.Eventually(t, func() bool {
		drift, ok := driftOf(g.addrs[moved])
		return ok && drift == ""
	}, waitLimit, 50*time.Millisecond, "the moved node's lists match the membership once it caught up")
	applyID(t, g.addrs[g.ready()], "moved")

	other := slices.DeleteFunc(slices.Clone(members), func(i int) bool { return i == moved })[0]
	w.mark("kill " + nodeID(other) + " after the move")
	g.stop(other, syscall.SIGKILL, -1)
	now := g.ready()
	for _, name := range []string{"before", "replaced", "after", "moved"} {
		require.True(t, holdsID(t, g.addrs[now], name), name)
	}
}
