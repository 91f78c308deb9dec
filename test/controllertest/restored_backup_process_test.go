//go:build embedded_controller

package controllertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/remoting"
)

// lineWriter is a logWriter that remembers whether a line held want.
type lineWriter struct {
	logWriter
	want string
	mu   sync.Mutex
	seen bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.want) {
		w.mu.Lock()
		w.seen = true
		w.mu.Unlock()
	}
	return w.logWriter.Write(p)
}

func (w *lineWriter) saw() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

// startWatched runs node i's process with its output going through w.
func (pc *procCluster) startWatched(i int, w io.Writer) *process {
	p := startProcessTo(pc.t, fmt.Sprintf("n%d", i), w, pc.bin, "-c", pc.paths[i])
	pc.mu.Lock()
	pc.procs[i] = p
	pc.mu.Unlock()
	return p
}

func (pc *procCluster) storeDir(i int) string {
	return filepath.Join(filepath.Dir(pc.paths[i]), "store")
}

// askLeader sends code to each of the nodes in turn until one answers
// other than 2007 (or the connection fails), within 20 s.
func askLeader(t *testing.T, pc *procCluster, nodes []int, code int32, ext map[string]string) *remoting.Command {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, i := range nodes {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			c, err := remoting.Dial(ctx, pc.addrs[i], remoting.ClientOptions{})
			if err == nil {
				resp, err := c.Invoke(ctx, remoting.NewRequest(code, ext, nil))
				_ = c.Close()
				if err == nil && resp.Code != 2007 {
					cancel()
					return resp
				}
			}
			cancel()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no leader among nodes %v answered code %d within 20 s", nodes, code)
	return nil
}

// applySet applies broker id 1 of set name and requires success.
func applySet(t *testing.T, pc *procCluster, nodes []int, name string) {
	t.Helper()
	resp := askLeader(t, pc, nodes, remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c",
		"brokerName": name, "appliedBrokerId": "1", "registerCheckCode": "127.0.0.1:10911;1"})
	require.Equal(t, int32(0), resp.Code, resp.Remark)
}

// nextID is the leader's next broker id of set name (1: the set is unknown).
func nextID(t *testing.T, pc *procCluster, nodes []int, name string) string {
	t.Helper()
	resp := askLeader(t, pc, nodes, remoting.ControllerGetNextBrokerID, map[string]string{"clusterName": "c", "brokerName": name})
	require.Equal(t, int32(0), resp.Code, resp.Remark)
	return resp.ExtFields["nextBrokerId"]
}

// TestRestoredDataDirectoryProcesses: three controller processes. n2 is
// stopped, its data directory copied and n2 started again; a follower
// (lagging) is killed; broker set s1 is acknowledged by the other two;
// both are killed and n2's directory is put back from the copy. Started
// with lagging, n2 would elect a leader without s1 and hand s1's broker
// id out again. It must exit, naming the fix; wiped, it joins without
// voting; once the third node is back s1 is there (next id 2).
func TestRestoredDataDirectoryProcesses(t *testing.T) {
	pc := startProcCluster(t)
	all := []int{0, 1, 2}
	applySet(t, pc, all, "s0")
	const restored = 2
	require.Equal(t, 0, pc.proc(restored).signal(syscall.SIGTERM))
	backup := filepath.Join(t.TempDir(), "backup")
	require.NoError(t, os.CopyFS(backup, os.DirFS(pc.storeDir(restored))))
	pc.start(restored)
	require.Equal(t, "2", nextID(t, pc, all, "s0"))

	const lagging, old = 0, 1 // whichever leads, the other two elect
	pc.proc(lagging).signal(syscall.SIGKILL)
	applySet(t, pc, []int{old, restored}, "s1")
	require.Equal(t, "2", nextID(t, pc, []int{old, restored}, "s1"))
	pc.proc(old).signal(syscall.SIGKILL)
	pc.proc(restored).signal(syscall.SIGKILL)
	require.NoError(t, os.RemoveAll(pc.storeDir(restored)))
	require.NoError(t, os.CopyFS(pc.storeDir(restored), os.DirFS(backup)))

	pc.start(lagging)
	w := &lineWriter{logWriter: logWriter{t: t, prefix: "n2"}, want: "wipe the data directory"}
	t.Cleanup(w.stop)
	p := pc.startWatched(restored, w)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		got := nextID(t, pc, []int{lagging, restored}, "s1")
		t.Logf("the restored node runs: the group without the third node hands out s1's id %s again", got)
		require.Equal(t, "2", got, "acknowledged set s1 lost")
	}
	require.Equal(t, 1, p.cmd.ProcessState.ExitCode())
	require.True(t, w.saw(), "the refusal names the fix")

	require.NoError(t, os.RemoveAll(pc.storeDir(restored)))
	pc.start(restored)
	pc.start(old)
	require.Equal(t, "2", nextID(t, pc, all, "s1"), "acknowledged set s1 survived")
	require.Equal(t, "2", nextID(t, pc, all, "s0"))
}

// runTool runs the controller binary with args to its end and returns
// its exit code and output.
func runTool(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	t.Logf("controller %s:\n%s", strings.Join(args, " "), out)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	require.NoError(t, err)
	return 0, string(out)
}

// TestBackupRestoredAsNewGroupProcesses: a backup taken from the leader
// of three processes restores, on every node, a new group holding the
// state as of the backup; a damaged file and an occupied directory are
// refused; a node started on its old group's directory at a member's
// address does not bring the old group's state into the new one.
func TestBackupRestoredAsNewGroupProcesses(t *testing.T) {
	pc := startProcCluster(t)
	all := []int{0, 1, 2}
	applySet(t, pc, all, "s0")
	client := admin.New(admin.Options{})
	t.Cleanup(func() { _ = client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	md, err := client.FindLeader(ctx, pc.addrs)
	require.NoError(t, err)
	_, enc, err := client.ControllerBackup(ctx, md.LeaderAddr)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "ctl.backup")
	require.NoError(t, os.WriteFile(file, enc, 0o600))
	applySet(t, pc, all, "after") // not in the backup
	for _, i := range all {
		pc.proc(i).signal(syscall.SIGKILL)
		require.NoError(t, os.Rename(pc.storeDir(i), pc.storeDir(i)+".old"))
	}

	damaged := file + ".damaged"
	require.NoError(t, os.WriteFile(damaged, enc[:len(enc)-1], 0o600))
	code, out := runTool(t, pc.bin, "-c", pc.paths[0], "-restore-backup", damaged)
	require.Equal(t, 1, code)
	require.Contains(t, out, "truncated or extended")
	for _, i := range all {
		code, out = runTool(t, pc.bin, "-c", pc.paths[i], "-restore-backup", file)
		require.Equal(t, 0, code)
		require.Contains(t, out, "of new raft group")
	}
	code, out = runTool(t, pc.bin, "-c", pc.paths[0], "-restore-backup", file)
	require.Equal(t, 1, code)
	require.Contains(t, out, "move the old one away first")

	for _, i := range all {
		pc.start(i)
	}
	require.Equal(t, "2", nextID(t, pc, all, "s0"), "the backup's state")
	require.Equal(t, "1", nextID(t, pc, all, "after"), "written after the backup")
	applySet(t, pc, all, "new")

	// The old machine of n0 comes back: its old group's directory (at its
	// own path, with its own mark) at n0's id and addresses.
	pc.proc(0).signal(syscall.SIGKILL)
	props, err := os.ReadFile(pc.paths[0])
	require.NoError(t, err)
	store := pc.storeDir(0)
	pc.paths[0] = filepath.Join(t.TempDir(), "old-n0.properties")
	require.NoError(t, os.WriteFile(pc.paths[0], []byte(strings.Replace(string(props),
		"controllerStorePath="+store, "controllerStorePath="+store+".old", 1)), 0o600))
	w := &lineWriter{logWriter: logWriter{t: t, prefix: "n0"}, want: "rpc from another raft group"}
	t.Cleanup(w.stop)
	pc.startWatched(0, w)
	require.Eventually(t, w.saw, 20*time.Second, 20*time.Millisecond, "the old node refuses the new group's rpcs")
	applySet(t, pc, []int{1, 2}, "newer")
	require.Equal(t, "1", nextID(t, pc, []int{1, 2}, "after"), "the old node's state stays out")
	require.Equal(t, "2", nextID(t, pc, []int{1, 2}, "new"))
}
