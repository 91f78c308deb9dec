//go:build embedded_controller

package raftstore

import (
	"errors"
	"fmt"

	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/backupfile"
)

// Sentinel errors returned by this package. Errors are wrapped, so test
// them with errors.Is; raft's own errors stay reachable through the chain.
var (
	// ErrInvalidConfig reports a Config that fails Validate, or a self
	// peer address that disagrees with the transport's address.
	ErrInvalidConfig = errors.New("raftstore: invalid config")
	// ErrIdentity reports a node whose id and Raft address are not in the
	// cluster configuration its data directory holds (it would run under
	// another node's identity), or whose empty data directory would
	// bootstrap a cluster its peers already form.
	ErrIdentity = errors.New("raftstore: identity does not match the stored cluster")
	// ErrBind reports that the Raft TCP transport could not listen; the
	// message names the address.
	ErrBind = errors.New("raftstore: cannot bind raft transport")
	// ErrNotLeader reports a write or barrier on a node that is not, or
	// stopped being, the leader. After raft.ErrLeadershipLost the command
	// may still have been committed.
	ErrNotLeader = errors.New("raftstore: not the raft leader")
	// ErrTimeout reports that the context ended, or raft could not enqueue
	// the request in time, before a result was known. The command may
	// still commit later.
	ErrTimeout = errors.New("raftstore: raft operation timed out")
	// ErrClosed reports an operation on a node that has been closed.
	ErrClosed = errors.New("raftstore: node closed")
	// ErrGuardState reports that the vote guard's state (kept in the
	// stable store beside raft's term and vote) cannot be read or written.
	ErrGuardState = errors.New("raftstore: vote guard state")
	// ErrBadRPC reports an inbound Raft RPC refused before hashicorp/raft
	// saw it: raft panics on it (an undecodable configuration, an entry of
	// an unknown type, entries that leave a gap in the log, a nil entry).
	ErrBadRPC = errors.New("raftstore: malformed raft rpc refused")
	// ErrDiskFault reports a log write failed by Config.DiskFaults (tests).
	ErrDiskFault = errors.New("raftstore: injected disk fault")
	// ErrVoteFloor reports a vote or pre-vote this node did not send, or
	// a term it could not adopt, because the term is not above its vote
	// floor (terms it may have voted in before its data directory was
	// wiped).
	ErrVoteFloor = errors.New("raftstore: term not above the vote floor")
	// ErrMemberChange reports a membership change refused for its request:
	// an unknown or existing id, an address in use, the leader itself, a
	// member to move that still answers at its old address.
	ErrMemberChange = errors.New("raftstore: membership change refused")
	// ErrChangeInProgress reports a membership change refused because
	// another one is running or a non-voter is not promoted yet.
	ErrChangeInProgress = errors.New("raftstore: membership change in progress")
	// ErrNoMajority reports a membership change refused because the
	// voters it leaves would not hold a live majority.
	ErrNoMajority = errors.New("raftstore: membership change would leave no live majority")
	// ErrStaleData reports a data directory whose log ends before what
	// this node had stored and acknowledged (its high-water mark): a
	// directory restored from an older copy, which must not vote.
	ErrStaleData = errors.New("raftstore: data directory older than what this node acknowledged")
	// ErrGroup reports an inbound RPC of another raft group (a group
	// restored from a backup has its own id; group.go).
	ErrGroup = errors.New("raftstore: rpc from another raft group")
	// ErrBadBackup reports a backup file that is not one, is truncated or
	// fails its checksum, or a restore that cannot use it.
	ErrBadBackup = backupfile.ErrBad
)

// translate maps raft's errors onto this package's sentinels, keeping the
// original error in the chain.
func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, raft.ErrNotLeader),
		errors.Is(err, raft.ErrLeadershipLost),
		errors.Is(err, raft.ErrLeadershipTransferInProgress):
		return fmt.Errorf("%w: %w", ErrNotLeader, err)
	case errors.Is(err, raft.ErrEnqueueTimeout):
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	case errors.Is(err, raft.ErrRaftShutdown):
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}
