//go:build embedded_controller

package raftstore

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// TestHighWaterFollowsTheLogAndIsNeverAhead drives a marked log store
// with random appends, failed writes, compactions and leader replacements
// of a suffix, reopening the mark now and then as a crash would: the mark
// always equals the newest entry stored (or trails it after a replaced
// suffix whose previous entry was compacted), and is never ahead of it.
func TestHighWaterFollowsTheLogAndIsNeverAhead(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	dir := filepath.Join(t.TempDir(), "data")
	hw, err := openHighWater(dir, testLogger(t, "hw"))
	require.NoError(t, err)
	faults := &DiskFaults{}
	inner := raft.NewInmemStore()
	s := &markedLogStore{LogStore: faults.wrap(inner), hw: hw, logger: testLogger(t, "hw")}
	term, first, last := uint64(1), uint64(1), uint64(0)
	for step := range 2000 {
		switch op := rng.IntN(10); {
		case op < 6: // append a batch
			n := 1 + rng.IntN(5)
			batch := make([]*raft.Log, n)
			for i := range batch {
				batch[i] = &raft.Log{Index: last + 1 + uint64(i), Term: term, Type: raft.LogCommand}
			}
			fail := rng.IntN(8) == 0
			if fail {
				faults.Fail()
			}
			err := s.StoreLogs(batch)
			faults.Heal()
			if fail {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				last += uint64(n)
			}
		case op < 7 && last > first+2: // compaction keeps at least one entry
			upTo := first + uint64(rng.IntN(int(last-first)))
			require.NoError(t, s.DeleteRange(first, upTo))
			first = upTo + 1
		case op < 9 && last >= first: // a new leader replaces a suffix
			from := first + uint64(rng.IntN(int(last-first+1)))
			require.NoError(t, s.DeleteRange(from, last))
			term++
			last = from - 1
		default: // a crash: the mark is read back from its file
			require.NoError(t, hw.Close())
			hw, err = openHighWater(dir, testLogger(t, "hw"))
			require.NoError(t, err)
			s.hw = hw
		}
		mark := hw.current()
		if last < first { // every entry replaced: the previous one was compacted
			require.Equal(t, position{}, mark, "step %d", step)
			continue
		}
		stored, err := newestPosition(inner, raft.NewInmemSnapshotStore())
		require.NoError(t, err)
		require.False(t, stored.before(mark), "step %d: mark %+v ahead of the log's %+v", step, mark, stored)
		require.Equal(t, stored, mark, "step %d", step)
	}
	require.NoError(t, hw.Close())
}

// TestHighWaterFileDamagedRefused: a mark file that is not a whole record
// (a stranger's bytes, a truncation) stops Open with ErrStaleData naming
// the file and how to go on; it is never read as zero.
func TestHighWaterFileDamagedRefused(t *testing.T) {
	for name, data := range map[string][]byte{
		"garbage":   []byte("not a mark at all, and longer than a record"),
		"truncated": append(highWaterMagic[:], 0, 0, 0),
		"bit flip":  flipped(t),
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			path, err := highWaterPath(dir)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o640))
			_, err = Open(Config{SelfID: "n0", Peers: []Peer{{"n0", "127.0.0.1:0"}}, Dir: dir,
				BindAddr: "127.0.0.1:0", Logger: testLogger(t, "hw")}, &counterFSM{})
			require.ErrorIs(t, err, ErrStaleData)
			require.ErrorContains(t, err, path)
			require.ErrorContains(t, err, "remove it")
		})
	}
}

// flipped is a valid record with one bit of its index flipped.
func flipped(t *testing.T) []byte {
	dir := filepath.Join(t.TempDir(), "data")
	hw, err := openHighWater(dir, testLogger(t, "hw"))
	require.NoError(t, err)
	require.NoError(t, hw.set(position{3, 40}, true))
	require.NoError(t, hw.Close())
	b, err := os.ReadFile(hw.path)
	require.NoError(t, err)
	b[20] ^= 1
	return b
}

// TestHighWaterRestartAndWipe: a clean restart keeps the mark equal to the
// log; a wiped directory (empty stores) resets it and joins as before.
func TestHighWaterRestartAndWipe(t *testing.T) {
	c := newTCPCluster(t, 3, nil)
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(3), applyN(t, leader, 3))
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 3)
	}
	c.closeAll()
	for _, p := range c.peers {
		c.open(p.ID, nil) // not refused: the log reaches the mark
	}
	leader = WaitForLeader(t, c.running()...)
	var wiped string
	for _, p := range c.peers {
		if p.ID != leader.ID() {
			wiped = p.ID
		}
	}
	c.kill(wiped)
	require.NoError(t, os.RemoveAll(c.dirs[wiped]))
	n := c.open(wiped, nil)
	require.Equal(t, position{}, n.parts.hw.current(), "a wiped directory resets the mark")
	require.Equal(t, int64(4), applyN(t, leader, 1))
	eventuallyValue(t, c.fsms[wiped], 4)
	require.Eventually(t, func() bool { return n.parts.hw.current().index >= 4 }, 10*time.Second, 10*time.Millisecond)
}

// TestHighWaterInsideWhenTheParentRefuses: a data directory whose parent
// is not writable keeps the mark inside it, with a warning, and still
// refuses a raft.db put back alone from an older copy.
func TestHighWaterInsideWhenTheParentRefuses(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	parent := filepath.Join(t.TempDir(), "ro")
	dir := filepath.Join(parent, "data")
	require.NoError(t, os.MkdirAll(dir, 0o750))
	require.NoError(t, os.Chmod(parent, 0o500))
	t.Cleanup(func() { _ = os.Chmod(parent, 0o750) })
	hw, err := openHighWater(dir, testLogger(t, "hw"))
	require.NoError(t, err)
	require.Equal(t, insideHighWater(dir), hw.path)
	require.NoError(t, hw.set(position{2, 9}, true))
	require.NoError(t, hw.Close())
	again, err := openHighWater(dir, testLogger(t, "hw"))
	require.NoError(t, err)
	require.Equal(t, position{2, 9}, again.current())
	require.NoError(t, again.Close())
}
