//go:build embedded_controller

package raftstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// The acknowledged high-water mark: the term and index of the newest log
// entry this node ever stored (and so may have acknowledged), kept in a
// small file beside the data directory, not in it: a data directory
// restored from an older copy (raft.db and snapshots/ together) leaves the
// mark where it was, and a log that ends before the mark is refused at
// start (ErrStaleData). The mark is written after raft's StoreLogs
// returned (bbolt has fsync'd the entries), so after any crash it is never
// ahead of what raft.db holds; a process crash keeps it exact (the write
// is in the page cache), and it is fsync'd at most highWaterSyncEvery
// after a write, so a power loss may leave it that much behind (a weaker
// check, never a false refusal). A leader's replacement of a log suffix
// lowers it, fsync'd, before the entries are deleted.

// highWaterSuffix names the mark's file: <data dir><suffix>, in the data
// directory's parent.
const highWaterSuffix = ".acked"

// highWaterSyncEvery bounds how stale the fsync'd mark may be.
const highWaterSyncEvery = time.Second

// highWaterMagic starts the mark's record; the record is the magic, the
// term and the index (big endian) and a CRC-32C of the 24 bytes before it.
var highWaterMagic = [8]byte{'r', 'm', 'q', 'h', 'w', 'm', '1', '\n'}

const highWaterRecord = 8 + 8 + 8 + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// position is a log position, ordered as Raft orders logs: term first.
type position struct{ term, index uint64 }

func (p position) before(q position) bool {
	return p.term < q.term || (p.term == q.term && p.index < q.index)
}

// highWater is the open mark file of one data directory.
type highWater struct {
	path     string
	mu       sync.Mutex
	f        *os.File
	mark     position
	lastSync time.Time
}

// highWaterPath is the mark's file of the data directory dir; a directory
// without a parent (the root) keeps it inside.
func highWaterPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("raftstore: data dir %s: %w", dir, err)
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if parent == abs {
		return insideHighWater(abs), nil
	}
	return filepath.Join(parent, base+highWaterSuffix), nil
}

// insideHighWater is where the mark goes when the data directory's parent
// cannot hold it: restoring the whole directory then restores the mark
// too, and only a raft.db put back alone is caught.
func insideHighWater(dir string) string { return filepath.Join(dir, "raft"+highWaterSuffix) }

// openHighWater opens (or creates, at zero) the mark of dir: beside it, or
// inside it (logged) when the parent refuses the file.
func openHighWater(dir string, logger hclog.Logger) (*highWater, error) {
	path, err := highWaterPath(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		logger.Warn("cannot keep the acknowledged high-water mark beside the data directory; keeping it inside: "+
			"a data directory restored as a whole from an older copy will not be detected", "path", path, "error", err)
		path = insideHighWater(dir)
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	}
	if err != nil {
		return nil, fmt.Errorf("raftstore: open high-water mark %s: %w", path, err)
	}
	h := &highWater{path: path, f: f, lastSync: time.Now()}
	if h.mark, err = readHighWater(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: high-water mark %s: %w (it is written only by this node: "+
			"remove it to start without the check once)", ErrStaleData, path, err)
	}
	return h, nil
}

// readHighWater decodes the record; an empty file is the zero mark.
func readHighWater(f *os.File) (position, error) {
	buf := make([]byte, highWaterRecord+1)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return position{}, err
	}
	switch {
	case n == 0:
		return position{}, nil
	case n != highWaterRecord || [8]byte(buf[:8]) != highWaterMagic:
		return position{}, errors.New("not a high-water record")
	case crc32.Checksum(buf[:24], castagnoli) != binary.BigEndian.Uint32(buf[24:28]):
		return position{}, errors.New("checksum mismatch")
	}
	return position{binary.BigEndian.Uint64(buf[8:16]), binary.BigEndian.Uint64(buf[16:24])}, nil
}

// current is the mark.
func (h *highWater) current() position {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mark
}

// set writes p as the mark; sync forces an fsync, else one runs when the
// last is highWaterSyncEvery old.
func (h *highWater) set(p position, sync bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var buf [highWaterRecord]byte
	copy(buf[:8], highWaterMagic[:])
	binary.BigEndian.PutUint64(buf[8:16], p.term)
	binary.BigEndian.PutUint64(buf[16:24], p.index)
	binary.BigEndian.PutUint32(buf[24:], crc32.Checksum(buf[:24], castagnoli))
	if _, err := h.f.WriteAt(buf[:], 0); err != nil {
		return fmt.Errorf("raftstore: write high-water mark %s: %w", h.path, err)
	}
	h.mark = p
	if !sync && time.Since(h.lastSync) < highWaterSyncEvery {
		return nil
	}
	h.lastSync = time.Now()
	if err := h.f.Sync(); err != nil {
		return fmt.Errorf("raftstore: sync high-water mark %s: %w", h.path, err)
	}
	return nil
}

// Close fsyncs and closes the mark.
func (h *highWater) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return errors.Join(h.f.Sync(), h.f.Close())
}

// check refuses stores whose newest position, log or snapshot, is before
// the mark. Empty stores (a wiped directory) reset the mark instead.
func (h *highWater) check(logs raft.LogStore, snaps raft.SnapshotStore, existing bool, dir string) error {
	if !existing {
		return h.set(position{}, true)
	}
	stored, err := newestPosition(logs, snaps)
	if err != nil {
		return err
	}
	mark := h.current()
	if !stored.before(mark) {
		return nil
	}
	return fmt.Errorf("%w: %s holds the log up to term %d index %d, but this node had stored "+
		"(and may have acknowledged) entries up to term %d index %d (high-water mark %s): the directory "+
		"is an older copy, and its votes could elect a leader without acknowledged entries; "+
		"wipe the data directory (remove %s, keep the properties file) and start the node again: "+
		"it joins without voting and the leader catches it up (README: Backups and disaster recovery)",
		ErrStaleData, dir, stored.term, stored.index, mark.term, mark.index, h.path, dir)
}

// newestPosition is the later of the last log entry and the newest snapshot.
func newestPosition(logs raft.LogStore, snaps raft.SnapshotStore) (position, error) {
	var p position
	metas, err := snaps.List()
	if err != nil {
		return p, fmt.Errorf("raftstore: list snapshots: %w", err)
	}
	if len(metas) > 0 {
		p = position{metas[0].Term, metas[0].Index}
	}
	last, err := logs.LastIndex()
	if err != nil || last == 0 {
		return p, err
	}
	var l raft.Log
	if err := logs.GetLog(last, &l); err != nil {
		return p, fmt.Errorf("raftstore: read log entry %d: %w", last, err)
	}
	if q := (position{l.Term, l.Index}); p.before(q) {
		p = q
	}
	return p, nil
}
