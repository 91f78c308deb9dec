//go:build embedded_controller

package raftstore

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

// checkRPC refuses an inbound RPC that hashicorp/raft would panic on, on
// its own goroutine (the process dies): anyone who reaches the Raft port
// can send one. A leader of this group never sends such an RPC: its
// entries follow PrevLogEntry one by one, are of the types raft writes,
// and its configurations decode. checkCommand (nil: none) is asked about
// the data of every LogCommand entry.
func checkRPC(cmd any, checkCommand func([]byte) error) error {
	if err := checkTerms(cmd); err != nil {
		return err
	}
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

// MaxTerm is the highest Raft term an inbound RPC may carry (its own, or
// one of its log's): a group that elects a leader every millisecond
// reaches it in 8,900 years. A term near 2^64 taken from a stranger was
// persisted, and the next election's term wrapped to 0: terms went
// backwards, which Raft's safety rests on never happening.
const MaxTerm = 1 << 48

// checkTerms refuses an RPC carrying a term above MaxTerm.
func checkTerms(cmd any) error {
	var terms []uint64
	switch req := cmd.(type) {
	case *raft.AppendEntriesRequest:
		terms = []uint64{req.Term, req.PrevLogTerm}
		for _, e := range req.Entries {
			if e != nil {
				terms = append(terms, e.Term)
			}
		}
	case *raft.RequestVoteRequest:
		terms = []uint64{req.Term, req.LastLogTerm}
	case *raft.RequestPreVoteRequest:
		terms = []uint64{req.Term, req.LastLogTerm}
	case *raft.InstallSnapshotRequest:
		terms = []uint64{req.Term, req.LastLogTerm}
	}
	for _, term := range terms {
		if term > MaxTerm {
			return fmt.Errorf("%w: term %d above %d", ErrBadRPC, term, uint64(MaxTerm))
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

// check refuses what checkRPC refuses and a snapshot announcing more than
// maxSnapshot bytes; it hands raft a snapshot's data through
// checkSnapshot.
func (g *voteGuard) check(rpc *raft.RPC) error {
	if err := checkRPC(rpc.Command, g.checkCommand); err != nil {
		return err
	}
	req, ok := rpc.Command.(*raft.InstallSnapshotRequest)
	if !ok {
		return nil
	}
	if g.maxSnapshot > 0 && req.Size > g.maxSnapshot {
		return fmt.Errorf("%w: install snapshot of %d bytes, more than %d", ErrBadRPC, req.Size, g.maxSnapshot)
	}
	if g.checkSnapshot != nil && rpc.Reader != nil {
		rpc.Reader = newCheckedReader(rpc.Reader, g.checkSnapshot)
	}
	return nil
}

// checkedReader passes r's bytes to its reader and, at the same time, to
// a check running on a pipe; at r's end it returns the check's error in
// place of io.EOF, so that raft's copy into the snapshot sink fails and
// the sink is cancelled.
type checkedReader struct {
	r    io.Reader
	pw   *io.PipeWriter
	done chan error
	once sync.Once
	err  error // the check's verdict, once known
}

// errCheckEnded closes the pipe once the check returned.
var errCheckEnded = errors.New("raftstore: snapshot check ended")

func newCheckedReader(r io.Reader, check func(io.Reader) error) *checkedReader {
	pr, pw := io.Pipe()
	c := &checkedReader{r: r, pw: pw, done: make(chan error, 1)}
	go func() {
		err := check(pr)
		_ = pr.CloseWithError(errCheckEnded)
		c.done <- err
	}()
	return c
}

// verdict closes the pipe and waits for the check, once.
func (c *checkedReader) verdict(cause error) error {
	c.once.Do(func() {
		_ = c.pw.CloseWithError(cause)
		if err := <-c.done; err != nil {
			c.err = fmt.Errorf("%w: install snapshot: %w", ErrBadRPC, err)
		}
	})
	return c.err
}

// Read reads from r and feeds the check.
func (c *checkedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		if _, werr := c.pw.Write(p[:n]); werr != nil { // the check returned before the end
			if v := c.verdict(werr); v != nil {
				return n, v
			}
		}
	}
	switch {
	case err == io.EOF:
		if v := c.verdict(nil); v != nil {
			return n, v
		}
	case err != nil:
		_ = c.verdict(err)
	}
	return n, err
}
