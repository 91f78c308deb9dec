//go:build embedded_controller

package raftstore

import (
	"errors"
	"io"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// reportingTransport is the transport raft runs on: the vote guard, with
// the result of every outbound RPC reported to the peer error log, by
// the peer's id and the RPC's kind. Inbound RPCs pass through.
type reportingTransport struct {
	raft.Transport // the vote guard
	peers          *peerLog
}

// heartbeatKind tells raft's heartbeat (no entries, no previous entry,
// no commit index) from a replication AppendEntries.
func heartbeatKind(req *raft.AppendEntriesRequest) string {
	if len(req.Entries) == 0 && req.PrevLogEntry == 0 && req.LeaderCommitIndex == 0 {
		return KindHeartbeat
	}
	return KindAppendEntries
}

// AppendEntries implements raft.Transport.
func (t *reportingTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress,
	args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	err := t.Transport.AppendEntries(id, target, args, resp)
	t.peers.report(id, heartbeatKind(args), err)
	return err
}

// AppendEntriesPipeline implements raft.Transport; the pipeline reports
// its sends too.
func (t *reportingTransport) AppendEntriesPipeline(id raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	p, err := t.Transport.AppendEntriesPipeline(id, target)
	if errors.Is(err, raft.ErrPipelineReplicationNotSupported) {
		return p, err
	}
	t.peers.report(id, KindPipeline, err)
	if err != nil {
		return p, err
	}
	return &reportingPipeline{AppendPipeline: p, id: id, peers: t.peers}, nil
}

// RequestVote implements raft.Transport.
func (t *reportingTransport) RequestVote(id raft.ServerID, target raft.ServerAddress,
	args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	err := t.Transport.RequestVote(id, target, args, resp)
	t.peers.report(id, KindRequestVote, err)
	return err
}

// RequestPreVote implements raft.WithPreVote (the vote guard has it).
func (t *reportingTransport) RequestPreVote(id raft.ServerID, target raft.ServerAddress,
	args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	pv, ok := t.Transport.(raft.WithPreVote)
	if !ok {
		return errors.New("raftstore: transport does not support pre-vote")
	}
	err := pv.RequestPreVote(id, target, args, resp)
	t.peers.report(id, KindPreVote, err)
	return err
}

// InstallSnapshot implements raft.Transport.
func (t *reportingTransport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress,
	args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	err := t.Transport.InstallSnapshot(id, target, args, resp, data)
	t.peers.report(id, KindInstallSnapshot, err)
	return err
}

// TimeoutNow implements raft.Transport.
func (t *reportingTransport) TimeoutNow(id raft.ServerID, target raft.ServerAddress,
	args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	err := t.Transport.TimeoutNow(id, target, args, resp)
	t.peers.report(id, KindTimeoutNow, err)
	return err
}

// Close implements raft.WithClose: raft's shutdown closes the guard.
func (t *reportingTransport) Close() error {
	if c, ok := t.Transport.(raft.WithClose); ok {
		return c.Close()
	}
	return nil
}

// reportingPipeline reports each send of a pipeline.
type reportingPipeline struct {
	raft.AppendPipeline
	id    raft.ServerID
	peers *peerLog
}

// AppendEntries implements raft.AppendPipeline.
func (p *reportingPipeline) AppendEntries(args *raft.AppendEntriesRequest,
	resp *raft.AppendEntriesResponse) (raft.AppendFuture, error) {
	f, err := p.AppendPipeline.AppendEntries(args, resp)
	p.peers.report(p.id, KindPipeline, err)
	return f, err
}

// raftPeerLines are hashicorp/raft's lines per failed outbound RPC, which
// the peer error log replaces: they are written at Debug.
var raftPeerLines = map[string]bool{
	"failed to heartbeat to":                  true,
	"failed to appendEntries to":              true,
	"failed to start pipeline replication to": true,
	"failed to pipeline appendEntries":        true,
	"failed to make requestVote RPC":          true,
}

// quietLogger is raft's logger with raftPeerLines at Debug, as are
// "failed to install snapshot" naming a peer (the follower's own has no
// peer) and "failed to send snapshot to" with the error the transport
// reported (raft logs the same error twice).
type quietLogger struct {
	hclog.Logger
	peers *peerLog
}

func (q *quietLogger) replaced(msg string, args []any) bool {
	switch {
	case raftPeerLines[msg]:
		return true
	case msg == "failed to install snapshot":
		return argValue(args, "peer") != nil
	case msg == "failed to send snapshot to":
		err, _ := argValue(args, "error").(error)
		return err != nil && q.peers.reported(err)
	}
	return false
}

// argValue returns the value of key in hclog's key/value args.
func argValue(args []any, key string) any {
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == key {
			return args[i+1]
		}
	}
	return nil
}

// Log writes msg, at Debug when the peer error log accounts for it.
func (q *quietLogger) Log(level hclog.Level, msg string, args ...any) {
	if level > hclog.Debug && q.replaced(msg, args) {
		level = hclog.Debug
	}
	q.Logger.Log(level, msg, args...)
}

// Error writes an error line (see Log).
func (q *quietLogger) Error(msg string, args ...any) { q.Log(hclog.Error, msg, args...) }

// Warn writes a warning (see Log).
func (q *quietLogger) Warn(msg string, args ...any) { q.Log(hclog.Warn, msg, args...) }

// Info writes an info line (see Log).
func (q *quietLogger) Info(msg string, args ...any) { q.Log(hclog.Info, msg, args...) }

// Named returns a sub-logger that stays quiet.
func (q *quietLogger) Named(name string) hclog.Logger {
	return &quietLogger{Logger: q.Logger.Named(name), peers: q.peers}
}

// With returns a sub-logger that stays quiet.
func (q *quietLogger) With(args ...any) hclog.Logger {
	return &quietLogger{Logger: q.Logger.With(args...), peers: q.peers}
}
