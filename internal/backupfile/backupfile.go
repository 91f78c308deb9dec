package backupfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

// ErrBad reports a file that is not a backup, is truncated or extended,
// fails its checksum or holds more than the reader's bound.
var ErrBad = errors.New("bad controller backup")

// Backup is a consistent copy of the replicated state: the data of a Raft
// snapshot the leader took after a barrier (every entry it committed
// before the request is in it), with the snapshot's index and term. Its
// file form (Encode) ends with a SHA-256 of everything before it.
type Backup struct {
	Index uint64
	Term  uint64
	Taken time.Time // when the leader took it (informational)
	Data  []byte    // the FSM's snapshot, as raft's snapshot store holds it
}

// backupMagic starts a backup file; backupVersion is its layout.
var backupMagic = [8]byte{'r', 'm', 'q', 'c', 't', 'l', 'b', 'k'}

const (
	backupVersion = 1
	// magic, version, index, term, taken (unix ms), data length
	backupHeader = 8 + 4 + 8 + 8 + 8 + 8
	backupSum    = sha256.Size
)

// Encode returns the backup's file form.
func (b *Backup) Encode() []byte {
	out := make([]byte, backupHeader, backupHeader+len(b.Data)+backupSum)
	copy(out, backupMagic[:])
	binary.BigEndian.PutUint32(out[8:], backupVersion)
	binary.BigEndian.PutUint64(out[12:], b.Index)
	binary.BigEndian.PutUint64(out[20:], b.Term)
	binary.BigEndian.PutUint64(out[28:], uint64(b.Taken.UnixMilli()))
	binary.BigEndian.PutUint64(out[36:], uint64(len(b.Data)))
	out = append(out, b.Data...)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...)
}

// Sum is the hex SHA-256 that ends the backup's file form.
func (b *Backup) Sum() string { return SumOf(b.Encode()) }

// SumOf is the hex SHA-256 that ends enc, a file form (Encode); it checks
// nothing (Decode does).
func SumOf(enc []byte) string {
	if len(enc) < backupSum {
		return ""
	}
	return hex.EncodeToString(enc[len(enc)-backupSum:])
}

// Decode parses a backup's file form, refusing (ErrBad) what
// is not one, a truncated or extended file, a checksum mismatch and data
// over maxData bytes.
func Decode(enc []byte, maxData int64) (*Backup, error) {
	if len(enc) < backupHeader+backupSum {
		return nil, fmt.Errorf("%w: %d bytes, shorter than any backup (truncated?)", ErrBad, len(enc))
	}
	if [8]byte(enc[:8]) != backupMagic {
		return nil, fmt.Errorf("%w: not a controller backup file", ErrBad)
	}
	if v := binary.BigEndian.Uint32(enc[8:]); v != backupVersion {
		return nil, fmt.Errorf("%w: backup layout %d, this binary reads %d", ErrBad, v, backupVersion)
	}
	size := binary.BigEndian.Uint64(enc[36:])
	if size > uint64(maxData) {
		return nil, fmt.Errorf("%w: state of %d bytes, more than %d", ErrBad, size, maxData)
	}
	if want := uint64(backupHeader) + size + backupSum; uint64(len(enc)) != want {
		return nil, fmt.Errorf("%w: %d bytes, the header announces %d (truncated or extended)", ErrBad, len(enc), want)
	}
	body := enc[:len(enc)-backupSum]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], enc[len(body):]) {
		return nil, fmt.Errorf("%w: checksum mismatch (the file is damaged)", ErrBad)
	}
	return &Backup{Index: binary.BigEndian.Uint64(enc[12:]), Term: binary.BigEndian.Uint64(enc[20:]),
		Taken: time.UnixMilli(int64(binary.BigEndian.Uint64(enc[28:]))), Data: slices.Clone(body[backupHeader:])}, nil
}

// ReadFile reads and decodes path, reading no more than a backup of
// maxData bytes can hold.
func ReadFile(path string, maxData int64) (*Backup, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBad, err)
	}
	defer f.Close()
	enc, err := io.ReadAll(io.LimitReader(f, backupHeader+maxData+backupSum+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %w", ErrBad, path, err)
	}
	b, err := Decode(enc, maxData)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
