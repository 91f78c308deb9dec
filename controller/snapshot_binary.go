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
	"math"
	"strings"

	"github.com/rmqgo/nameserver/controller/wire"
)

// exactStringMax is the longest string read into an exact allocation;
// longer ones grow as their bytes arrive, so a corrupt length allocates no
// more than exactStringMax beyond the bytes that are there.
const exactStringMax = 16 << 20

// snapshotReader reads the version 2 encoding from br, checksumming what
// it reads; lr is the ceiling under br (the bytes left to read).
type snapshotReader struct {
	br  *bufio.Reader
	lr  *ceilingReader
	crc hash.Hash32
	// format is the newest format the node reads; version and
	// clusterVersion are the header's (version 2: cluster version 1).
	format, version, clusterVersion int
}

// ReadByte implements io.ByteReader for the varints.
func (r *snapshotReader) ReadByte() (byte, error) {
	b, err := r.br.ReadByte()
	if err == nil {
		_, _ = r.crc.Write([]byte{b})
	}
	return b, err
}

func (r *snapshotReader) uvarint() (uint64, error) { return binary.ReadUvarint(r) }
func (r *snapshotReader) varint() (int64, error)   { return binary.ReadVarint(r) }

func (r *snapshotReader) int32() (int32, error) {
	v, err := r.varint()
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = fmt.Errorf("%w: epoch %d out of int32 range", errSnapshotCorrupt, v)
	}
	return int32(v), err
}

// count reads a count that each item needs at least one byte for.
func (r *snapshotReader) count() (int, error) {
	n, err := r.uvarint()
	if err == nil && n > uint64(r.left()) {
		err = fmt.Errorf("%w: count %d past the end", errSnapshotCorrupt, n)
	}
	return int(n), err
}

// left is the number of bytes the snapshot can still hold.
func (r *snapshotReader) left() int64 { return r.lr.left + int64(r.br.Buffered()) }

func (r *snapshotReader) bytes() (string, error) {
	n, err := r.uvarint()
	if err != nil {
		return "", err
	}
	if n > uint64(r.left()) {
		return "", fmt.Errorf("%w: string of %d bytes past the end", errSnapshotCorrupt, n)
	}
	var sb strings.Builder
	sb.Grow(int(min(n, exactStringMax)))
	for left := int(n); left > 0; {
		chunk, err := r.br.Peek(min(left, r.br.Size()))
		if len(chunk) == 0 {
			return "", err
		}
		_, _ = r.crc.Write(chunk)
		_, _ = sb.Write(chunk)
		_, _ = r.br.Discard(len(chunk))
		left -= len(chunk)
	}
	return sb.String(), nil
}

// decodeV2 decodes a version 2 or 3 snapshot (snapshot.go) from br on a
// node that reads formats up to format, and gives its version.
func decodeV2(br *bufio.Reader, lr *ceilingReader, format int) (*state, int, error) {
	r := &snapshotReader{br: br, lr: lr, crc: crc32.New(crc32c), format: format}
	st, err := r.decode()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("%w: truncated", errSnapshotCorrupt)
	}
	return st, r.version, err
}

func (r *snapshotReader) decode() (*state, error) {
	if err := r.header(); err != nil {
		return nil, err
	}
	st := newState()
	if r.clusterVersion > formatV1 {
		st.clusterVersion = r.clusterVersion
	}
	if err := r.sets(st); err != nil {
		return nil, err
	}
	if err := r.retired(st); err != nil {
		return nil, err
	}
	return st, r.trailer()
}

func (r *snapshotReader) header() error {
	var magic [len(snapshotMagic)]byte
	if _, err := io.ReadFull(r.br, magic[:]); err != nil {
		return err
	}
	_, _ = r.crc.Write(magic[:])
	if magic != snapshotMagic {
		return fmt.Errorf("%w: bad magic %x", errSnapshotCorrupt, magic)
	}
	v, err := r.uvarint()
	if err != nil {
		return err
	}
	return r.versions(v)
}

func (r *snapshotReader) sets(st *state) error {
	return r.sortedNames("broker set", func(name string) error { return r.set(st, name) })
}

// sortedNames reads a count, then that many names, each strictly after the
// one before it (the encoder writes them sorted), calling each on every
// name before the next is read.
func (r *snapshotReader) sortedNames(what string, each func(name string) error) error {
	n, err := r.count()
	prev := ""
	for i := 0; i < n && err == nil; i++ {
		var name string
		if name, err = r.bytes(); err != nil {
			break
		}
		if i > 0 && name <= prev {
			return fmt.Errorf("%w: %s names out of order", errSnapshotCorrupt, what)
		}
		prev = name
		err = each(name)
	}
	return err
}

func (r *snapshotReader) set(st *state, name string) error {
	halves, err := r.ReadByte()
	if err != nil {
		return err
	}
	if halves == 0 || halves&^(halfReplicas|halfSyncState) != 0 {
		return fmt.Errorf("%w: broker set halves %#x", errSnapshotCorrupt, halves)
	}
	if halves&halfReplicas != 0 {
		if st.replicas[name], err = r.replicaHalf(name); err != nil {
			return err
		}
	}
	if halves&halfSyncState != 0 {
		st.syncStates[name], err = r.syncHalf(name)
	}
	return err
}

func (r *snapshotReader) replicaHalf(name string) (*replicaInfo, error) {
	ri := &replicaInfo{BrokerName: name}
	var err error
	if ri.ClusterName, err = r.bytes(); err != nil {
		return nil, err
	}
	if ri.NextAssignBrokerID, err = r.varint(); err != nil {
		return nil, err
	}
	n, err := r.count()
	ri.Brokers = make(map[int64]brokerIDInfo, min(n, 1024))
	prev := int64(math.MinInt64)
	for i := 0; i < n && err == nil; i++ {
		var id int64
		if id, err = r.varint(); err != nil {
			break
		}
		if i > 0 && id <= prev {
			return nil, fmt.Errorf("%w: broker ids out of order", errSnapshotCorrupt)
		}
		prev = id
		ri.Brokers[id], err = r.broker()
	}
	return ri, err
}

func (r *snapshotReader) broker() (brokerIDInfo, error) {
	var info brokerIDInfo
	var err error
	if info.Address, err = r.bytes(); err == nil {
		info.RegisterCheckCode, err = r.bytes()
	}
	return info, err
}

func (r *snapshotReader) syncHalf(name string) (*syncStateInfo, error) {
	ss := &syncStateInfo{BrokerName: name}
	var err error
	if ss.ClusterName, err = r.bytes(); err != nil {
		return nil, err
	}
	if ss.MasterEpoch, err = r.int32(); err != nil {
		return nil, err
	}
	if ss.SyncStateSetEpoch, err = r.int32(); err != nil {
		return nil, err
	}
	n, err := r.count()
	ids := make([]int64, 0, min(n, 1024))
	for i := 0; i < n && err == nil; i++ {
		var id int64
		id, err = r.varint()
		ids = append(ids, id)
	}
	if err != nil {
		return nil, err
	}
	ss.SyncStateSet = wire.NormalizeIDs(ids)
	ss.MasterBrokerID, err = r.varint()
	return ss, err
}

func (r *snapshotReader) retired(st *state) error {
	return r.sortedNames("retired", func(name string) error {
		var ep retiredSet
		var err error
		if ep.MasterEpoch, err = r.int32(); err == nil {
			if ep.SyncStateSetEpoch, err = r.int32(); err == nil {
				ep.NextBrokerID, err = r.varint()
			}
		}
		st.retired[name] = ep
		return err
	})
}

// trailer checks the CRC-32C and that nothing follows it.
func (r *snapshotReader) trailer() error {
	sum := r.crc.Sum32()
	var tail [4]byte
	if _, err := io.ReadFull(r.br, tail[:]); err != nil {
		return err
	}
	if got := binary.BigEndian.Uint32(tail[:]); got != sum {
		return fmt.Errorf("%w: checksum %08x, computed %08x", errSnapshotCorrupt, got, sum)
	}
	if _, err := r.br.ReadByte(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("%w: bytes after the trailer", errSnapshotCorrupt)
		}
		return err
	}
	return nil
}
