//go:build embedded_controller

package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/backupfile"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
)

// maxBackupBytes bounds the state a backup carries: the answer is one
// remoting frame, at most remoting.DefaultMaxFrameLength, header included.
const maxBackupBytes = remoting.DefaultMaxFrameLength - 1<<20

// handleBackup serves ControllerBackup (42101, ours) on the ready leader:
// the body is the backup file of a snapshot taken after a barrier
// (raftstore Node.Backup), the header its index, term and SHA-256. A
// follower answers 2007 naming the leader; one backup runs at a time (a
// second is answered 2 at once). It needs the admin role with ACL on
// (acl.Required: a code it does not list). The request carries nothing.
func (c *Controller) handleBackup(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if !c.gate.ready(c.node) {
		resp := c.respond(req, outcome{err: errNotLeader})
		if id := c.node.LeaderID(); id != "" {
			resp.ExtFields = map[string]string{"controllerLeaderId": id, "controllerLeaderAddress": c.remotingAddrOf(id)}
		}
		return resp, nil
	}
	if !c.backupSlot.TryLock() {
		return c.respond(req, outcome{err: &domainError{Kind: errSystemBusy, Remark: "a backup is being taken"}}), nil
	}
	defer c.backupSlot.Unlock()
	ctx, cancel := context.WithTimeout(c.ctx, requestTimeout)
	defer cancel()
	b, err := c.node.Backup(ctx, maxBackupBytes)
	if errors.Is(err, raftstore.ErrNotLeader) {
		return c.respond(req, outcome{err: errNotLeader}), nil
	}
	if err != nil {
		c.logger.Warn("controller backup failed", "error", err)
		return c.respond(req, outcome{err: &domainError{Kind: errSystem, Remark: fmt.Sprintf("backup failed: %v", err)}}), nil
	}
	resp := c.newResponse(req, codeSuccess, "")
	resp.Body = b.Encode()
	resp.ExtFields = map[string]string{"index": strconv.FormatUint(b.Index, 10),
		"term": strconv.FormatUint(b.Term, 10), "sha256": backupfile.SumOf(resp.Body), "bytes": strconv.Itoa(len(resp.Body))}
	c.logger.Info("controller backup taken", "index", b.Index, "term", b.Term, "bytes", len(resp.Body))
	return resp, nil
}

// RestoreBackup writes this node's controllerStorePath as a member of a
// new group holding b's state (raftstore.RestoreBackup): the peers of
// controllerRaftPeers, every one a voter, and the group id every node
// restoring b with the same peers and token computes, which it returns.
// The state must be a snapshot this binary restores; the directory must
// hold no Raft state.
func RestoreBackup(cfg *config.ControllerConfig, b *backupfile.Backup, token string) (string, error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	raftPeers, err := cfg.RaftPeers()
	if err != nil {
		return "", err
	}
	rc := raftstore.Config{SelfID: cfg.ControllerDLegerSelfId, Dir: cfg.ControllerStorePath}
	for _, p := range raftPeers {
		rc.Peers = append(rc.Peers, raftstore.Peer{ID: p.ID, RaftAddr: p.Addr})
	}
	group := raftstore.GroupIDFor(b, rc.Peers, token)
	check := func(r io.Reader) error {
		_, _, err := readSnapshot(r, maxSnapshotBytes)
		return err
	}
	return group, raftstore.RestoreBackup(rc, b, group, check)
}
