//go:build embedded_controller

package controller

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/internal/version"
)

// Snapshot format, version 2 (docs/controller.md, "Snapshots"). Strings are
// stored as raw bytes with a length, so every state Apply can produce
// round-trips exactly: empty names, invalid UTF-8, NUL, any length. The
// encoding is streamed into the sink and streamed back by Restore; neither
// holds a second copy of the state.
//
//	magic     snapshotMagic (4 bytes), then uvarint 2
//	sets      uvarint count, then per broker set, names strictly ascending
//	          (bytewise):
//	            bytes name, byte halves (1 replicas, 2 sync state, 3 both)
//	            replicas:   bytes cluster, varint nextAssignBrokerId,
//	                        uvarint count, then per id (strictly ascending):
//	                        varint id, bytes address, bytes registerCheckCode
//	            sync state: bytes cluster, varint masterEpoch,
//	                        varint syncStateSetEpoch, uvarint count, varint
//	                        ids (ascending), varint masterBrokerId
//	retired   uvarint count, then per tombstone (names strictly ascending):
//	          bytes name, varint masterEpoch, varint syncStateSetEpoch,
//	          varint nextBrokerId
//	trailer   CRC-32C of every byte above, 4 bytes big endian; then EOF.
//
// bytes is a uvarint length then the bytes; varint is zig-zag (signed).
// Version 3 is version 2 with uvarint clusterVersion after the version,
// written only once the cluster version is 2 or more (entry_format.go); version 2
// is written before. Version 1 (JSON, legacy.go) is still read, never
// written.
const (
	snapshotVersion = 2
	// snapshotVersionCV is version 2 carrying the cluster version.
	snapshotVersionCV = 3
	// maxSnapshotBytes is the largest snapshot Restore reads: past it the
	// restore fails (raft keeps the current state and tries an older
	// snapshot). No state within the replicated-state bounds comes near it.
	maxSnapshotBytes = 1 << 30
	// snapshotBufSize is the write and read buffer of the streaming codec.
	snapshotBufSize = 64 << 10
)

// snapshotMagic opens a version 2 snapshot. Its first byte is not ASCII, so
// it never starts a version 1 (JSON) snapshot.
var snapshotMagic = [4]byte{0x89, 'R', 'C', 'S'}

// Halves of a broker set present in a version 2 snapshot.
const (
	halfReplicas  byte = 1
	halfSyncState byte = 2
)

// Snapshot errors (Restore wraps them; raft then tries an older snapshot).
var (
	errSnapshotCorrupt  = errors.New("corrupt snapshot")
	errSnapshotTooLarge = errors.New("snapshot larger than the restore ceiling")
	errSnapshotVersion  = errors.New("unsupported snapshot version")
	// errNewerFormat: a log entry or snapshot of a format newer than the
	// node reads (entry_format.go); Apply stops on it.
	errNewerFormat = errors.New("format newer than this node reads")
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// snapshotWriter is a buffered writer that keeps the first error; the
// buffer drains into a crcWriter, so strings are neither copied nor
// checksummed twice.
type snapshotWriter struct {
	w       *bufio.Writer
	crc     *crcWriter
	scratch [binary.MaxVarintLen64]byte
	err     error
}

// crcWriter checksums what it passes on.
type crcWriter struct {
	w   io.Writer
	crc hash.Hash32
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	_, _ = c.crc.Write(p[:n])
	return n, err
}

func (w *snapshotWriter) write(p []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(p)
	}
}

func (w *snapshotWriter) uvarint(v uint64) { w.write(binary.AppendUvarint(w.scratch[:0], v)) }
func (w *snapshotWriter) varint(v int64)   { w.write(binary.AppendVarint(w.scratch[:0], v)) }

func (w *snapshotWriter) bytes(s string) {
	w.uvarint(uint64(len(s)))
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

// writeSnapshot streams the version 2 encoding of s into out. Equal states
// give equal bytes.
func writeSnapshot(out io.Writer, s *state) error {
	cw := &crcWriter{w: out, crc: crc32.New(crc32c)}
	w := &snapshotWriter{w: bufio.NewWriterSize(cw, snapshotBufSize), crc: cw}
	w.write(snapshotMagic[:])
	if cv := s.version(); cv >= formatClusterVersion {
		w.uvarint(snapshotVersionCV)
		w.uvarint(uint64(cv))
	} else {
		w.uvarint(snapshotVersion)
	}
	names := s.BrokerNames()
	w.uvarint(uint64(len(names)))
	for _, name := range names {
		w.writeSet(s, name)
	}
	retired := s.retiredNames()
	w.uvarint(uint64(len(retired)))
	for _, name := range retired {
		ep := s.retired[name]
		w.bytes(name)
		w.varint(int64(ep.MasterEpoch))
		w.varint(int64(ep.SyncStateSetEpoch))
		w.varint(ep.NextBrokerID)
	}
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err == nil {
		_, w.err = out.Write(binary.BigEndian.AppendUint32(nil, cw.crc.Sum32()))
	}
	return w.err
}

func (w *snapshotWriter) writeSet(s *state, name string) {
	r, hasR := s.replicas[name]
	ss, hasS := s.syncStates[name]
	var halves byte
	if hasR {
		halves |= halfReplicas
	}
	if hasS {
		halves |= halfSyncState
	}
	w.bytes(name)
	w.write([]byte{halves})
	if hasR {
		w.bytes(r.ClusterName)
		w.varint(r.NextAssignBrokerID)
		ids := r.sortedIDs()
		w.uvarint(uint64(len(ids)))
		for _, id := range ids {
			w.varint(id)
			w.bytes(r.Brokers[id].Address)
			w.bytes(r.Brokers[id].RegisterCheckCode)
		}
	}
	if hasS {
		w.bytes(ss.ClusterName)
		w.varint(int64(ss.MasterEpoch))
		w.varint(int64(ss.SyncStateSetEpoch))
		ids := wire.NormalizeIDs(ss.SyncStateSet)
		w.uvarint(uint64(len(ids)))
		for _, id := range ids {
			w.varint(id)
		}
		w.varint(ss.MasterBrokerID)
	}
}

// snapshotStats describes a restored snapshot for the log.
type snapshotStats struct {
	Version    int
	Bytes      int64
	Duplicates int // version 1 only: repeated broker-set halves (the last kept)
}

// readSnapshot stream-decodes a snapshot of any version this binary reads,
// reading at most limit bytes.
func readSnapshot(in io.Reader, limit int64) (*state, snapshotStats, error) {
	return readSnapshotUpTo(in, limit, version.ControllerFormat)
}

// readSnapshotUpTo is readSnapshot on a node that reads formats up to
// format.
func readSnapshotUpTo(in io.Reader, limit int64, format int) (*state, snapshotStats, error) {
	lr := &ceilingReader{r: in, left: limit}
	br := bufio.NewReaderSize(lr, snapshotBufSize)
	first, err := br.Peek(1)
	if err != nil {
		return nil, snapshotStats{}, fmt.Errorf("%w: empty: %w", errSnapshotCorrupt, err)
	}
	var st *state
	var stats snapshotStats
	if first[0] == snapshotMagic[0] {
		st, stats.Version, err = decodeV2(br, lr, format)
	} else {
		st, stats.Duplicates, err = decodeV1(br)
		stats.Version = 1
	}
	stats.Bytes = limit - lr.left
	if lr.over {
		err = fmt.Errorf("%w (%d bytes)", errSnapshotTooLarge, limit)
	}
	return st, stats, err
}

// ceilingReader reads at most left bytes; past them it fails.
type ceilingReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *ceilingReader) Read(p []byte) (int, error) {
	if c.left <= 0 { // at the ceiling: anything more is too much
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			c.over = true
			return 0, errSnapshotTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
