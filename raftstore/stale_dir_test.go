//go:build embedded_controller

package raftstore

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// copyTree copies the directory src to dst (created), files and
// subdirectories: a data directory backed up or restored by copying.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o750)
		}
		return copyFile(path, target)
	}))
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// openErr opens id on its directory and address like tcpCluster.open, and
// returns Open's error instead of failing on it.
func (c *tcpCluster) openErr(id string) (*Node, error) {
	c.fsms[id] = &counterFSM{}
	n, err := Open(Config{SelfID: id, Peers: c.peers, Dir: c.dirs[id], BindAddr: c.addr(id),
		Logger: c.logger.Named(id)}, c.fsms[id])
	if err == nil {
		c.nodes[id] = n
	}
	return n, err
}

// TestRestoredDataDirectoryRefusedAndNothingAcknowledgedLost: three nodes;
// the restored node's data directory is backed up (stopped, copied); the
// lagging node goes down; entry 6 (a new broker set) is acknowledged by
// the leader and the restored node; both crash; the restored node's
// directory is put back from the backup. Started with the lagging node,
// the restored node would elect a leader without entry 6, and the old
// leader's log would be truncated when it returns. It must refuse to
// start, naming the fix; once wiped it joins without voting, the group
// waits for the old leader, and entry 6 survives.
func TestRestoredDataDirectoryRefusedAndNothingAcknowledgedLost(t *testing.T) {
	c := newTCPCluster(t, 3, nil)
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(5), applyN(t, leader, 5))
	var followers []string
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 5)
		if p.ID != leader.ID() {
			followers = append(followers, p.ID)
		}
	}
	lagging, restored, old := followers[0], followers[1], leader.ID()
	backup := filepath.Join(t.TempDir(), "backup")
	c.kill(restored)
	copyTree(t, c.dirs[restored], backup)
	c.open(restored, nil)

	c.kill(lagging)
	leader = waitServing(t, c.running()) // counter 6: the new set, on old and restored only
	require.Equal(t, int64(7), applyN(t, leader, 1))
	eventuallyValue(t, c.fsms[old], 7)
	eventuallyValue(t, c.fsms[restored], 7)
	c.kill(old)
	c.kill(restored)
	require.NoError(t, os.RemoveAll(c.dirs[restored]))
	copyTree(t, backup, c.dirs[restored])

	b := c.open(lagging, nil)
	n, err := c.openErr(restored)
	if err == nil {
		got := applyN(t, WaitForLeader(t, b, n), 1)
		t.Logf("the restored node started and voted: the next write made the counter %d (8 if nothing was lost)", got)
		require.Equal(t, int64(8), got, "acknowledged entries were lost")
	}
	require.ErrorIs(t, err, ErrStaleData)
	t.Logf("restored node refused: %v", err)
	require.ErrorContains(t, err, "wipe the data directory")

	require.NoError(t, os.RemoveAll(c.dirs[restored]))
	n = c.open(restored, nil)
	requireRefusing(t, b, n)
	c.open(old, nil)
	got := applyN(t, waitServing(t, c.running()), 1)
	t.Logf("with the old leader back the next writes made the counter %d (9 if nothing was lost)", got)
	require.Equal(t, int64(9), got, "acknowledged entries were lost")
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 9)
	}
}
