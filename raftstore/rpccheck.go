//go:build embedded_controller

package raftstore

import (
	"fmt"

	"github.com/hashicorp/raft"
)

// checkRPC refuses an inbound RPC that hashicorp/raft would panic on, on
// its own goroutine (the process dies): anyone who reaches the Raft port
// can send one. A leader of this group never sends such an RPC: its
// entries follow PrevLogEntry one by one, are of the types raft writes,
// and its configurations decode. checkCommand (nil: none) is asked about
// the data of every LogCommand entry.
func checkRPC(cmd any, checkCommand func([]byte) error) error {
	switch req := cmd.(type) {
	case *raft.AppendEntriesRequest:
		return checkEntries(req, checkCommand)
	case *raft.InstallSnapshotRequest:
		if req.SnapshotVersion > 0 && !configurationDecodes(req.Configuration) {
			return fmt.Errorf("%w: install snapshot: configuration does not decode", ErrBadRPC)
		}
	}
	return nil
}

// checkEntries: no nil entry, indexes following PrevLogEntry with no gap
// (raft applies a committed index by reading every entry up to it, and
// panics on a missing one), known types, configurations that decode,
// commands that checkCommand accepts.
func checkEntries(req *raft.AppendEntriesRequest, checkCommand func([]byte) error) error {
	for i, e := range req.Entries {
		if e == nil {
			return fmt.Errorf("%w: append entries: entry %d is nil", ErrBadRPC, i)
		}
		if want := req.PrevLogEntry + 1 + uint64(i); e.Index != want {
			return fmt.Errorf("%w: append entries: entry %d has index %d, want %d", ErrBadRPC, i, e.Index, want)
		}
		switch e.Type {
		case raft.LogCommand:
			if checkCommand == nil {
				continue
			}
			if err := checkCommand(e.Data); err != nil {
				return fmt.Errorf("%w: append entries: command entry %d: %w", ErrBadRPC, e.Index, err)
			}
		case raft.LogNoop, raft.LogBarrier:
		case raft.LogConfiguration:
			if !configurationDecodes(e.Data) {
				return fmt.Errorf("%w: append entries: configuration entry %d does not decode", ErrBadRPC, e.Index)
			}
		default: // the deprecated peer types included: this group never writes them
			return fmt.Errorf("%w: append entries: entry %d has type %d", ErrBadRPC, e.Index, e.Type)
		}
	}
	return nil
}

// configurationDecodes reports whether raft.DecodeConfiguration, which
// panics on bytes it cannot decode, accepts b.
func configurationDecodes(b []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	raft.DecodeConfiguration(b)
	return true
}
