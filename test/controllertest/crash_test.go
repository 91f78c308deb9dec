//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/crashtrial"
)

// TestControllerWritesSurviveKill9 kills a single-node controller process
// (cmd/controller) with SIGKILL at a random point while four clients apply
// broker ids (1013, each to a new broker set: one Raft entry each),
// restarts it on the same store and reads every set back with 1012: each
// acknowledged id must be there (next id 2). 3 trials, 100 in long mode
// (RMQ_TEST_LONG=1); RMQ_CRASH_SEED replays a run.
func TestControllerWritesSurviveKill9(t *testing.T) {
	bin := binary(t, "controller")
	addr := freeAddr(t)
	// Every write is a new set: 100 trials (long mode) pass the default
	// controllerMaxBrokerSets, which this test is not about.
	path := writeProps(t, t.TempDir(), "n0", "n0-"+addr, "n0-"+freeAddr(t),
		[]string{"bindAddress=127.0.0.1", "controllerMaxBrokerSets=100000"})
	start := func() *process {
		p := startProcess(t, "n0", bin, "-c", path)
		awaitLeader(t, addr)
		return p
	}
	proc := start()
	rng := crashtrial.Rand(t)
	var tally crashtrial.Tally
	for trial := range crashtrial.Trials() {
		l := crashtrial.NewLedger()
		tally.Add(l)
		cw := newIDWriters(t, addr, 4, trial, l)
		wait := crashtrial.Run(len(cw.conns), cw.apply)
		d := crashtrial.KillPoint(t, rng, l, 300*time.Millisecond, waitLimit)
		require.Equal(t, -1, proc.signal(syscall.SIGKILL))
		wait()
		proc = start()
		tally.Check(t, fmt.Sprintf("trial %d (kill %v after the first ack)", trial, d), l, idReader(t, addr))
	}
	tally.CheckAll(t, "controller", idReader(t, addr))
	require.Equal(t, 0, proc.signal(syscall.SIGTERM))
}

// awaitLeader polls 1012 on every address until one answers as ready
// leader, and returns its index.
func awaitLeader(t *testing.T, addrs ...string) int {
	t.Helper()
	leader := -1
	require.Eventually(t, func() bool {
		for i, addr := range addrs {
			if answersAsLeader(addr) {
				leader = i
				return true
			}
		}
		return false
	}, waitLimit, 20*time.Millisecond, "no controller of %v became ready leader", addrs)
	return leader
}

func answersAsLeader(addr string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	if err != nil {
		return false
	}
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerGetNextBrokerID,
		map[string]string{"clusterName": "C", "brokerName": "probe"}, nil))
	return err == nil && resp.Code == remoting.Success
}

// TestControllerClusterWritesSurviveKill9 is the trial on three
// cmd/controller processes: at a random point of the writes to the leader,
// SIGKILL either the leader or all three (a power loss), restart what was
// killed, and read every acknowledged write back from the ready leader.
func TestControllerClusterWritesSurviveKill9(t *testing.T) {
	bin := binary(t, "controller")
	ids := []string{"n0", "n1", "n2"}
	var addrs, peers, raftPeers []string
	for _, id := range ids {
		addrs = append(addrs, freeAddr(t))
		peers = append(peers, id+"-"+addrs[len(addrs)-1])
		raftPeers = append(raftPeers, id+"-"+freeAddr(t))
	}
	dir := t.TempDir()
	procs := make([]*process, len(ids))
	paths := make([]string, len(ids))
	for i, id := range ids {
		paths[i] = writeProps(t, filepath.Join(dir, id), id, strings.Join(peers, ";"), strings.Join(raftPeers, ";"),
			[]string{"bindAddress=127.0.0.1"})
		procs[i] = startProcess(t, id, bin, "-c", paths[i])
	}
	rng := crashtrial.Rand(t)
	var tally crashtrial.Tally
	for trial := range crashtrial.Trials() {
		leader := awaitLeader(t, addrs...)
		l := crashtrial.NewLedger()
		tally.Add(l)
		cw := newIDWriters(t, addrs[leader], 4, trial, l)
		wait := crashtrial.Run(len(cw.conns), cw.apply)
		d := crashtrial.KillPoint(t, rng, l, 300*time.Millisecond, waitLimit)
		victims, what := []int{leader}, "the leader"
		if rng.IntN(2) == 0 {
			victims, what = []int{0, 1, 2}, "all three"
		}
		for _, i := range victims {
			require.Equal(t, -1, procs[i].signal(syscall.SIGKILL))
		}
		wait()
		for _, i := range victims {
			procs[i] = startProcess(t, ids[i], bin, "-c", paths[i])
		}
		leader = awaitLeader(t, addrs...)
		what = fmt.Sprintf("trial %d (kill %s %v after the first ack)", trial, what, d)
		tally.Check(t, what, l, idReader(t, addrs[leader]))
	}
	tally.CheckAll(t, "controller cluster", idReader(t, addrs[awaitLeader(t, addrs...)]))
}

// idWriters apply broker id 1 to fresh broker sets, each writer on its own
// connection.
type idWriters struct {
	conns []*remoting.Client
	l     *crashtrial.Ledger
	trial int
}

func newIDWriters(t *testing.T, addr string, n, trial int, l *crashtrial.Ledger) *idWriters {
	cw := &idWriters{l: l, trial: trial}
	for range n {
		cw.conns = append(cw.conns, dialController(t, addr))
	}
	return cw
}

func dialController(t *testing.T, addr string) *remoting.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// apply sends writer w's i-th 1013; it returns false once the node is gone.
func (cw *idWriters) apply(w, i int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	name := fmt.Sprintf("t%d-w%d-%d", cw.trial, w, i)
	cw.l.Sent(name, "1")
	brokerAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(10000+w))
	resp, err := cw.conns[w].Invoke(ctx, remoting.NewRequest(remoting.ControllerApplyBrokerID, map[string]string{
		"clusterName": "C", "brokerName": name, "appliedBrokerId": "1",
		"registerCheckCode": brokerAddr + ";" + strconv.FormatInt(time.Now().UnixMilli(), 10)}, nil))
	if err != nil {
		return false
	}
	if resp.Code == remoting.Success {
		cw.l.Acked(name)
	}
	return true
}

// idReader reports a broker set as holding id "1" when 1012 answers next
// id 2 (1 when the set is unknown).
func idReader(t *testing.T, addr string) func(string) (string, bool, error) {
	c := dialController(t, addr)
	return func(name string) (string, bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerGetNextBrokerID,
			map[string]string{"clusterName": "C", "brokerName": name}, nil))
		if err != nil {
			return "", false, err
		}
		if resp.Code != remoting.Success {
			return "", false, fmt.Errorf("1012 answered %d %s", resp.Code, resp.Remark)
		}
		switch next := resp.ExtFields["nextBrokerId"]; next {
		case "1":
			return "", false, nil
		case "2":
			return "1", true, nil
		default:
			return next, true, nil
		}
	}
}
