//go:build embedded_controller

package raftstore

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/backupfile"
)

// backupOf takes a backup on the leader of c and round-trips it through
// a file, as mqadmin writes and the restore reads it.
func backupOf(t *testing.T, c *tcpCluster) *Backup {
	t.Helper()
	leader := WaitForLeader(t, c.running()...)
	for _, n := range c.running() {
		if n != leader {
			_, err := n.Backup(context.Background(), 1<<20)
			require.ErrorIs(t, err, ErrNotLeader, "a follower refuses")
		}
	}
	b, err := leader.Backup(context.Background(), 1<<20)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "controller.backup")
	require.NoError(t, os.WriteFile(path, b.Encode(), 0o600))
	read, err := backupfile.ReadFile(path, 1<<20)
	require.NoError(t, err)
	require.Equal(t, b.Data, read.Data)
	require.Equal(t, b.Index, read.Index)
	return read
}

// restoreInto writes a new data directory for every peer of c from b and
// returns the old directories.
func restoreInto(t *testing.T, c *tcpCluster, b *Backup) map[string]string {
	t.Helper()
	old := map[string]string{}
	group := GroupIDFor(b, c.peers, "")
	for _, p := range c.peers {
		old[p.ID], c.dirs[p.ID] = c.dirs[p.ID], filepath.Join(t.TempDir(), "restored")
		require.NoError(t, RestoreBackup(Config{SelfID: p.ID, Peers: c.peers, Dir: c.dirs[p.ID]}, b, group, nil))
	}
	return old
}

// TestBackupRestoresANewGroupTheOldNodesCannotJoin: a backup taken from
// the leader restores, on every node, a new group holding the state (it
// survives snapshot and restart, and a wiped member joins it); a node of
// the old group started with its old directory at a member's address
// neither votes in it nor follows it, and the new group's state stays.
func TestBackupRestoresANewGroupTheOldNodesCannotJoin(t *testing.T) {
	c := newTCPCluster(t, 3, func(cfg *Config) { cfg.TrailingLogs = 2 })
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(7), applyN(t, leader, 7))
	b := backupOf(t, c)
	require.Equal(t, int64(8), applyN(t, leader, 1), "written after the backup: not restored")
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 8)
	}
	c.closeAll()
	old := restoreInto(t, c, b)

	for _, p := range c.peers {
		c.open(p.ID, nil)
		require.Equal(t, int64(7), c.fsms[p.ID].Value(), "%s restored the backup's state", p.ID)
	}
	leader = waitServing(t, c.running())
	require.Equal(t, int64(9), applyN(t, leader, 1))
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 9)
		requireSnapshotAndTruncationOrNothingNew(t, c.nodes[p.ID])
	}
	c.closeAll()
	for _, p := range c.peers {
		c.open(p.ID, nil)
	}
	leader = WaitForLeader(t, c.running()...)
	require.Equal(t, int64(10), applyN(t, leader, 1), "the restored state survived snapshot and restart")

	stale := c.peers[0].ID
	if stale == leader.ID() {
		stale = c.peers[1].ID
	}
	c.kill(stale)
	c.dirs[stale], old[stale] = old[stale], c.dirs[stale]
	n := c.open(stale, nil) // the old group's directory at the member's address
	requireGroupHolds(t, c, stale, n)

	c.kill(stale)
	require.NoError(t, os.RemoveAll(old[stale]))
	c.dirs[stale] = old[stale] // wiped: a member of the new group again
	c.open(stale, nil)
	leader = waitServing(t, c.running())
	got := applyN(t, leader, 1)
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], got)
	}
}

// requireGroupHolds writes to the new group while the old group's node
// runs beside it: the old node's state and the new group's stay apart.
func requireGroupHolds(t *testing.T, c *tcpCluster, stale string, n *Node) {
	t.Helper()
	var members []*Node
	for _, p := range c.peers {
		if p.ID != stale {
			members = append(members, c.nodes[p.ID])
		}
	}
	oldValue := c.fsms[stale].Value() // its snapshot's; it can learn no commit
	require.LessOrEqual(t, oldValue, int64(8))
	leader := waitServing(t, members)
	before := c.fsms[leader.ID()].Value()
	require.Equal(t, before+3, applyN(t, leader, 3))
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		require.False(t, n.IsLeader(), "a node of the old group leads the restored one")
		require.Equal(t, oldValue, c.fsms[stale].Value(), "the restored group wrote into an old node")
		require.NotEqual(t, stale, leader.LeaderID())
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("old node %s at term %s beside the restored group at term %s, leader %s",
		stale, n.Stats()["term"], leader.Stats()["term"], leader.ID())
}

// requireSnapshotAndTruncationOrNothingNew takes a snapshot on n.
func requireSnapshotAndTruncationOrNothingNew(t *testing.T, n *Node) {
	t.Helper()
	err := n.Snapshot()
	if err != nil {
		require.ErrorContains(t, err, "nothing new")
	}
}

// TestRestoreRefusesAnOccupiedDirectoryAndBadState: a restore never
// writes over a data directory holding raft state, and refuses data the
// check refuses.
func TestRestoreRefusesAnOccupiedDirectoryAndBadState(t *testing.T) {
	peers := []Peer{{"n0", "127.0.0.1:1"}, {"n1", "127.0.0.1:2"}}
	b := &Backup{Index: 9, Term: 3, Data: []byte("12")}
	dir := filepath.Join(t.TempDir(), "data")
	cfg := Config{SelfID: "n0", Peers: peers, Dir: dir}
	err := RestoreBackup(cfg, b, "g", func(r io.Reader) error { return os.ErrInvalid })
	require.ErrorIs(t, err, ErrBadBackup)
	require.NoDirExists(t, dir, "nothing written")
	require.NoError(t, RestoreBackup(cfg, b, "g", nil))
	err = RestoreBackup(cfg, b, "g", nil)
	require.ErrorIs(t, err, ErrBadBackup)
	require.ErrorContains(t, err, "move the old one away")
	require.Error(t, RestoreBackup(cfg, b, "", nil), "a group id is required")
	for _, index := range []uint64{0, MaxTerm + 1, 1<<64 - 1} {
		other := Config{SelfID: "n0", Peers: peers, Dir: filepath.Join(t.TempDir(), "data")}
		err := RestoreBackup(other, &Backup{Index: index, Term: 1, Data: []byte("1")}, "g", nil)
		require.ErrorIs(t, err, ErrBadBackup, "index %d", index)
		require.NoDirExists(t, other.Dir)
	}
}
