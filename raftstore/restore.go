//go:build embedded_controller

package raftstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"
)

// keyCurrentTerm is hashicorp/raft's stable-store key of the current term.
var keyCurrentTerm = []byte("CurrentTerm")

// restoredTerm is the term of the snapshot a restore writes: a new group.
const restoredTerm = 1

// GroupIDFor is the group id of a group restored from b with peers:
// every node restoring the same backup with the same peer list (and
// token) computes the same one, and it differs from the id of the group
// the backup was taken from.
func GroupIDFor(b *Backup, peers []Peer, token string) string {
	sorted := slices.Clone(peers)
	slices.SortFunc(sorted, func(x, y Peer) int { return strings.Compare(x.ID, y.ID) })
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", b.Sum(), token)
	for _, p := range sorted {
		fmt.Fprintf(h, "%s=%s\n", p.ID, p.RaftAddr)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// RestoreBackup writes cfg.Dir as a member of a new group holding b's
// state: a snapshot of b's data at b's index (term 1) whose configuration
// is cfg.Peers, every one a voter, and the group id group (GroupIDFor).
// Started on it with the same Config, the node restores the snapshot into
// its FSM and refuses every RPC of another group. check, when set, reads
// the data first (the FSM's snapshot check); the directory must hold no
// Raft state (a restore never overwrites one).
func RestoreBackup(cfg Config, b *Backup, group string, check func(io.Reader) error) error {
	if cfg.Transport == nil && cfg.BindAddr == "" {
		cfg.BindAddr = cfg.selfAddr() // nothing binds: the checks only
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.InMemory || group == "" || len(group) > maxGroupID {
		return fmt.Errorf("%w: restore needs a data directory and a group id of 1..%d bytes", ErrBadBackup, maxGroupID)
	}
	if b.Index == 0 || b.Index > MaxTerm { // the next index must not wrap
		return fmt.Errorf("%w: raft index %d is not in 1..%d", ErrBadBackup, b.Index, uint64(MaxTerm))
	}
	if check != nil {
		if err := check(bytes.NewReader(b.Data)); err != nil {
			return fmt.Errorf("%w: the state does not restore: %w", ErrBadBackup, err)
		}
	}
	if err := emptyTarget(cfg.Dir); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.Dir, 0o750); err != nil {
		return fmt.Errorf("raftstore: create data dir %s: %w", cfg.Dir, err)
	}
	if err := writeSnapshot(&cfg, b); err != nil {
		return err
	}
	if err := writeStable(cfg.Dir, group); err != nil {
		return err
	}
	hw, err := openHighWater(cfg.Dir, hclog.NewNullLogger())
	if err == nil {
		err = errors.Join(hw.set(position{}, true), hw.Close())
	}
	return err
}

// emptyTarget refuses a directory holding raft.db or a snapshot.
func emptyTarget(dir string) error {
	for _, name := range []string{logFileName, "snapshots"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("%w: %s already holds %s: a restore writes a new data directory, "+
				"move the old one away first", ErrBadBackup, dir, name)
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("raftstore: restore target %s: %w", dir, err)
		}
	}
	return nil
}

// writeSnapshot stores b's data as the newest snapshot of cfg.Dir.
func writeSnapshot(cfg *Config, b *Backup) error {
	snaps, err := raft.NewFileSnapshotStoreWithLogger(cfg.Dir, snapshotRetain, hclog.NewNullLogger())
	if err != nil {
		return fmt.Errorf("raftstore: open snapshot store in %s: %w", cfg.Dir, err)
	}
	index := b.Index
	_, enc := raft.NewInmemTransport("") // encodes the legacy peer list of the snapshot's meta
	defer enc.Close()
	sink, err := snaps.Create(raft.SnapshotVersionMax, index, restoredTerm, cfg.configuration(), index, enc)
	if err != nil {
		return fmt.Errorf("raftstore: create snapshot: %w", err)
	}
	if _, err := sink.Write(b.Data); err != nil {
		return errors.Join(fmt.Errorf("raftstore: write snapshot: %w", err), sink.Cancel())
	}
	if err := sink.Close(); err != nil {
		return fmt.Errorf("raftstore: write snapshot: %w", err)
	}
	return nil
}

// writeStable creates raft.db with the restored term and the group id.
func writeStable(dir, group string) error {
	store, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, logFileName),
		BoltOptions: &bbolt.Options{Timeout: boltOpenTimeout}})
	if err != nil {
		return fmt.Errorf("raftstore: create log store in %s: %w", dir, err)
	}
	err = errors.Join(store.SetUint64(keyCurrentTerm, restoredTerm), store.Set(keyGroupID, []byte(group)))
	return errors.Join(err, store.Close())
}
