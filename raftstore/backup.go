//go:build embedded_controller

package raftstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/backupfile"
)

// Backup is a backup's content (backupfile.Backup).
type Backup = backupfile.Backup

// Backup returns a consistent copy of the state from the leader: after a
// barrier (every entry committed before the call is applied), the data of
// a snapshot taken now, or of the newest one when nothing changed since.
// It refuses on a follower (ErrNotLeader) and above maxData bytes.
func (n *Node) Backup(ctx context.Context, maxData int64) (*Backup, error) {
	if !n.IsLeader() {
		return nil, fmt.Errorf("%w: backups are taken on the leader (%s)", ErrNotLeader, n.LeaderID())
	}
	if err := n.Barrier(ctx); err != nil {
		return nil, err
	}
	meta, rc, err := n.openSnapshot()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxData+1))
	if err != nil {
		return nil, fmt.Errorf("raftstore: read snapshot %s: %w", meta.ID, err)
	}
	if int64(len(data)) > maxData {
		return nil, fmt.Errorf("%w: the state snapshot is larger than %d bytes", ErrBadBackup, maxData)
	}
	return &Backup{Index: meta.Index, Term: meta.Term, Taken: time.Now(), Data: data}, nil
}

// openSnapshot takes a snapshot and opens it, or opens the newest one
// when nothing was applied since it.
func (n *Node) openSnapshot() (*raft.SnapshotMeta, io.ReadCloser, error) {
	f := n.raft.Snapshot()
	err := f.Error()
	if err == nil {
		return f.Open()
	}
	if !errors.Is(err, raft.ErrNothingNewToSnapshot) {
		return nil, nil, translate(err)
	}
	metas, err := n.parts.snaps.List()
	if err != nil || len(metas) == 0 {
		return nil, nil, fmt.Errorf("raftstore: newest snapshot: %w (%d found)", err, len(metas))
	}
	return n.parts.snaps.Open(metas[0].ID)
}
