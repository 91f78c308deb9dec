//go:build embedded_controller

package raftstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/lograte"
)

// Node is one running Raft member: the *raft.Raft plus the stores and
// transport it runs on. Close releases all of them.
type Node struct {
	id           string
	raft         *raft.Raft
	parts        *parts
	guard        *voteGuard
	peers        *peerLog
	logger       hclog.Logger
	bootstrapped atomic.Bool
	members      changes       // membership changes (members.go)
	configured   []Peer        // Config.Peers, compared with the stored configuration (Drift)
	probeRounds  atomic.Uint64 // rounds resolveEmpty waited (tests)

	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Open validates cfg, creates the data dir, stores and transport, and
// starts Raft with fsm. With empty stores, a node alone in cfg.Peers
// bootstraps at once; otherwise Open returns a running, undecided node and
// asks the peers in the background (JoinProbeInterval) until one holds a
// log (a wiped data directory: it joins and votes only once the leader
// caught it up) or a majority, counting itself, answered empty (a new
// cluster: it bootstraps, once every peer answered or after a grace of
// three probe rounds, with a vote floor; see decide). Stores that hold state must list SelfID at its
// RaftAddr in their latest configuration (ErrIdentity). It takes
// ownership of cfg.Transport even when it fails.
func Open(cfg Config, fsm raft.FSM) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		closeTransport(cfg.Transport)
		return nil, err
	}
	d := cfg.withDefaults()
	logger := lograte.Wrap(d.Logger).Named("raft") // raft logs what peers, or strangers, send
	p, err := buildParts(&d, logger)
	if err != nil {
		return nil, err
	}
	n, err := start(&d, fsm, p, logger)
	if err != nil {
		return nil, errors.Join(err, p.close())
	}
	return n, nil
}

// start bootstraps if needed and runs raft.NewRaft on already-built
// parts, behind a vote guard. It does not release p on failure.
func start(cfg *Config, fsm raft.FSM, p *parts, logger hclog.Logger) (*Node, error) {
	peers := newPeerLog(logger, cfg)
	rc := cfg.raftConfig(&quietLogger{Logger: logger, peers: peers})
	if err := raft.ValidateConfig(rc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	g, err := newVoteGuard(p.trans, p.stable, cfg.SelfID, logger)
	if err != nil {
		return nil, err
	}
	g.checkCommand, g.checkSnapshot, g.maxSnapshot = cfg.CheckCommand, cfg.CheckSnapshot, cfg.MaxSnapshotBytes
	boot, err := p.bootstrapIfNew(cfg, rc, g)
	if err == nil {
		err = p.recordOwner(cfg)
	}
	if err != nil {
		return nil, err
	}
	p.trans = g
	r, err := raft.NewRaft(rc, fsm, p.logs, p.stable, p.snaps, &reportingTransport{Transport: g, peers: peers})
	if err != nil {
		return nil, fmt.Errorf("raftstore: start raft: %w", err)
	}
	g.start(r)
	n := &Node{id: cfg.SelfID, raft: r, parts: p, guard: g, peers: peers, logger: logger, stop: make(chan struct{}),
		configured: cfg.Peers}
	n.bootstrapped.Store(boot)
	n.spawn(func() { peers.run(n.stop) })
	n.spawn(func() { n.runPromoter(cfg.JoinProbeInterval) })
	mode := g.currentMode()
	if mode == modeUndecided {
		n.spawn(func() { n.resolveEmpty(cfg) })
	}
	logger.Info("raft node started", "id", cfg.SelfID, "addr", g.LocalAddr(),
		"bootstrapped", boot, "vote_guard", modeName(mode))
	return n, nil
}

// spawn runs fn on a goroutine that Close waits for.
func (n *Node) spawn(fn func()) {
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		fn()
	}()
}

func closeTransport(t raft.Transport) {
	if c, ok := t.(raft.WithClose); ok {
		_ = c.Close()
	}
}

// ID returns this node's server ID.
func (n *Node) ID() string { return n.id }

// Addr returns the address this node's transport advertises.
func (n *Node) Addr() string { return string(n.parts.trans.LocalAddr()) }

// Raft returns the underlying *raft.Raft for anything not wrapped here.
func (n *Node) Raft() *raft.Raft { return n.raft }

// Bootstrapped reports whether this node bootstrapped a new cluster (only
// on the first start with empty stores; with other peers it turns true
// once a majority of them answered empty, after Open returned).
func (n *Node) Bootstrapped() bool { return n.bootstrapped.Load() }

// IsLeader reports whether this node currently believes it is the leader.
// Pair it with Barrier before serving leader-only reads.
func (n *Node) IsLeader() bool { return n.raft.State() == raft.Leader }

// LeaderID returns the current leader's server ID, or "" if unknown.
func (n *Node) LeaderID() string {
	_, id := n.raft.LeaderWithID()
	return string(id)
}

// LeaderCh is raft's leadership channel: true when this node becomes
// leader, false when it loses leadership. It has a single consumer and a
// one-slot buffer that keeps only the latest value, so transitions may be
// coalesced (two trues in a row mean leadership was lost and regained).
// On true, call Barrier before treating local FSM state as current.
func (n *Node) LeaderCh() <-chan bool { return n.raft.LeaderCh() }

// Stats passes through raft.Stats: state, term, commit_index,
// applied_index, last_log_index, last_snapshot_index and more, plus
// vote_guard: voting, undecided (empty stores, peers not yet answered) or
// catching-up (joined after a wiped data directory, not voting yet).
func (n *Node) Stats() map[string]string {
	s := n.raft.Stats()
	s["vote_guard"] = modeName(n.guard.currentMode())
	return s
}

// PeerErrors returns how many outbound RPCs to each configured peer
// (OtherPeer for a server not configured) failed since Open, by kind
// (Kinds), each counted whether its line was written or summarized.
func (n *Node) PeerErrors() []PeerErrorCount { return n.peers.counts() }

// Apply replicates cmd and returns the FSM's response once it is
// committed and applied here. It is bounded by ctx, or DefaultApplyTimeout
// when ctx has no deadline. An FSM response that is an error is returned
// as the error. Not-leader, timeout and shutdown errors wrap ErrNotLeader,
// ErrTimeout and ErrClosed.
func (n *Node) Apply(ctx context.Context, cmd []byte) (interface{}, error) {
	ctx, cancel := withDefaultTimeout(ctx)
	defer cancel()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	if err := n.stopped(); err != nil {
		return nil, err
	}
	f := n.raft.Apply(cmd, remaining(ctx))
	if err := n.wait(ctx, f); err != nil {
		return nil, err
	}
	resp := f.Response()
	if err, ok := resp.(error); ok {
		return nil, err
	}
	return resp, nil
}

// ApplyWait is Apply for a caller that must not go on before the fate of
// cmd is known (the controller's serial scheduler): enqueue bounds only
// the wait for a place in raft's queue; after that it waits for raft's
// future with no deadline. The future always resolves (applied here,
// leadership lost, or shutdown), so ApplyWait returns then, or earlier
// with ErrTimeout only when ctx ends (ctx should be a lifetime context,
// not a request deadline). Results and errors are as for Apply.
func (n *Node) ApplyWait(ctx context.Context, cmd []byte, enqueue time.Duration) (interface{}, error) {
	if err := n.stopped(); err != nil {
		return nil, err
	}
	f := n.raft.Apply(cmd, max(enqueue, time.Nanosecond))
	if err := n.wait(ctx, f); err != nil {
		return nil, err
	}
	resp := f.Response()
	if err, ok := resp.(error); ok {
		return nil, err
	}
	return resp, nil
}

// Barrier blocks until every preceding log entry is applied to this
// leader's FSM, bounded like Apply. Errors wrap the same sentinels.
func (n *Node) Barrier(ctx context.Context) error {
	ctx, cancel := withDefaultTimeout(ctx)
	defer cancel()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return n.wait(ctx, n.raft.Barrier(remaining(ctx)))
}

// Snapshot takes a snapshot now and compacts the log down to TrailingLogs.
// It passes raft.ErrNothingNewToSnapshot through when nothing changed.
func (n *Node) Snapshot() error { return translate(n.raft.Snapshot().Error()) }

// Close shuts Raft down, then closes the transport and the stores. It is
// idempotent: later calls return the first call's result.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		close(n.stop)
		err := n.raft.Shutdown().Error()
		n.wg.Wait()
		n.closeErr = errors.Join(err, n.parts.close())
		n.logger.Info("raft node closed", "id", n.id, "error", n.closeErr)
	})
	return n.closeErr
}

// withDefaultTimeout adds DefaultApplyTimeout to a ctx without deadline.
func withDefaultTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, DefaultApplyTimeout)
}

// remaining is the time left before ctx's deadline, at least 1ns so raft
// never treats it as "no timeout".
func remaining(ctx context.Context) time.Duration {
	deadline, _ := ctx.Deadline()
	return max(time.Until(deadline), time.Nanosecond)
}

// wait waits for f, for ctx to end or for Close, whichever comes first.
// Raft resolves its futures at the latest on shutdown, except one of
// BatchApplyCh's that entered the buffered apply channel after shutdown
// (its select found both ready): nothing reads it, so Close ends the
// wait (its helper goroutine is then left; Apply checks stopped first, so
// only an Apply racing Close can leave one).
func (n *Node) wait(ctx context.Context, f raft.Future) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return translate(err)
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrTimeout, ctx.Err())
	case <-n.stop:
		return fmt.Errorf("%w: %w", ErrClosed, raft.ErrRaftShutdown)
	}
}

// stopped is ErrClosed once Close has begun.
func (n *Node) stopped() error {
	select {
	case <-n.stop:
		return fmt.Errorf("%w: %w", ErrClosed, raft.ErrRaftShutdown)
	default:
		return nil
	}
}
