//go:build embedded_controller

package raftstore

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Modes of the vote guard, persisted in the stable store under keyGuardMode.
const (
	modeVoting     uint64 = iota // votes pass to raft (terms above the floor)
	modeUndecided                // empty stores: bootstrap or join not yet decided
	modeCatchingUp               // joined after a wipe: no vote until caught up
)

// Keys the guard keeps in raft's StableStore beside raft's own keys.
var (
	keyGuardMode   = []byte("raftstore.GuardMode")
	keyGuardTarget = []byte("raftstore.GuardTarget")
	keyVoteFloor   = []byte("raftstore.VoteFloor")
)

// voteGuard wraps a node's raft.Transport. It answers the peers' join
// probe itself (current term and last log index) and, while the node
// started with a wiped data directory is undecided or catching up,
// refuses RequestVote and RequestPreVote in raft's place: a node with an
// empty log must not be the vote that elects a leader lacking an entry it
// had acknowledged. After catching up it refuses votes in terms up to the
// vote floor, the terms in which its lost vote record may hold a vote.
type voteGuard struct {
	raft.Transport
	id     raft.ServerID
	stable raft.StableStore
	logger hclog.Logger
	// checkCommand, checkSnapshot and maxSnapshot are Config's
	// CheckCommand, CheckSnapshot and MaxSnapshotBytes.
	checkCommand  func([]byte) error
	checkSnapshot func(io.Reader) error
	maxSnapshot   int64
	out           chan raft.RPC
	stop          chan struct{}
	once          sync.Once
	raft          atomic.Pointer[raft.Raft]
	refused       atomic.Uint64 // votes and pre-votes refused (tests)
	// campaignsRefused counts own (pre-)vote requests not sent while not
	// voting (tests).
	campaignsRefused atomic.Uint64
	raising          atomic.Bool    // raiseToFloor's goroutine runs
	wg               sync.WaitGroup // raiseToFloor's goroutine

	mu     sync.Mutex
	mode   uint64
	target uint64      // last log index to reach before voting again
	floor  uint64      // votes in terms up to floor are refused
	leader atomic.Bool // a leader's AppendEntries or snapshot arrived

	groupMu sync.Mutex
	group   string // the raft group id, "" for a bootstrapped group (group.go)
}

// newVoteGuard wraps trans and loads the persisted guard state.
func newVoteGuard(trans raft.Transport, stable raft.StableStore, id string, logger hclog.Logger) (*voteGuard, error) {
	g := &voteGuard{Transport: trans, id: raft.ServerID(id), stable: stable,
		logger: logger.Named("voteguard"), out: make(chan raft.RPC), stop: make(chan struct{})}
	var err error
	for _, f := range []struct {
		key []byte
		v   *uint64
	}{{keyGuardMode, &g.mode}, {keyGuardTarget, &g.target}, {keyVoteFloor, &g.floor}} {
		*f.v, err = getUint64(stable, f.key)
		if err != nil {
			return nil, err
		}
	}
	return g, g.loadGroup()
}

// getUint64 reads key, 0 when absent (raft's stores say "not found").
func getUint64(s raft.StableStore, key []byte) (uint64, error) {
	v, err := s.GetUint64(key)
	if err != nil && err.Error() != "not found" {
		return 0, errors.Join(ErrGuardState, err)
	}
	return v, nil
}

// Consumer is what raft reads: the inner transport's RPCs minus the ones
// the guard answers.
func (g *voteGuard) Consumer() <-chan raft.RPC { return g.out }

// RequestPreVote passes raft's pre-vote through (raft enables pre-vote
// only when the transport has this method), unless the node is not
// voting or its term is not above the vote floor.
func (g *voteGuard) RequestPreVote(id raft.ServerID, target raft.ServerAddress,
	args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	if err := g.mayCampaign(); err != nil {
		return err
	}
	if err := g.aboveFloor(args.Term); err != nil {
		return g.raiseToFloor(err)
	}
	pv, ok := g.Transport.(raft.WithPreVote)
	if !ok {
		return errors.New("raftstore: transport does not support pre-vote")
	}
	return pv.RequestPreVote(id, target, args, resp)
}

// SetHeartbeatHandler passes raft's heartbeat fast path through, noting
// that a leader reached this node.
func (g *voteGuard) SetHeartbeatHandler(cb func(rpc raft.RPC)) {
	if cb == nil {
		g.Transport.SetHeartbeatHandler(nil)
		return
	}
	g.Transport.SetHeartbeatHandler(func(rpc raft.RPC) {
		err := checkTerms(rpc.Command) // raft's fast path skips handle
		if err == nil {
			err = g.checkGroup(rpc.Command)
		}
		if err != nil {
			g.logger.Warn("raft rpc refused", "error", err)
			rpc.Respond(emptyResponse(rpc.Command), err)
			return
		}
		if req, ok := rpc.Command.(*raft.AppendEntriesRequest); ok {
			if r := g.raft.Load(); r != nil {
				g.sawLeader(req.Term >= r.CurrentTerm())
			}
		}
		cb(rpc)
	})
}

// Close stops the guard and closes the inner transport (raft's shutdown
// calls it).
func (g *voteGuard) Close() error {
	g.once.Do(func() { close(g.stop) })
	g.wg.Wait()
	if c, ok := g.Transport.(raft.WithClose); ok {
		return c.Close()
	}
	return nil
}

// start begins relaying RPCs to r.
func (g *voteGuard) start(r *raft.Raft) {
	g.raft.Store(r)
	go g.run()
}

func (g *voteGuard) run() {
	in := g.Transport.Consumer()
	for {
		select {
		case rpc := <-in:
			g.handle(rpc)
		case <-g.stop:
			return
		}
	}
}

// handle answers probes and refused votes, refuses RPCs raft would panic
// on (checkRPC), and relays everything else.
func (g *voteGuard) handle(rpc raft.RPC) {
	r := g.raft.Load()
	err := g.check(&rpc)
	if err == nil {
		err = g.checkGroup(rpc.Command)
	}
	if err != nil {
		g.logger.Warn("raft rpc refused", "error", err)
		rpc.Respond(emptyResponse(rpc.Command), err)
		return
	}
	switch req := rpc.Command.(type) {
	case *raft.AppendEntriesRequest:
		if string(req.ID) == probeID {
			rpc.Respond(&raft.AppendEntriesResponse{RPCHeader: g.header(),
				Term: g.reportedTerm(r), LastLog: r.LastIndex()}, nil)
			return
		}
		g.sawLeader(req.Term >= r.CurrentTerm())
	case *raft.InstallSnapshotRequest:
		g.sawLeader(req.Term >= r.CurrentTerm())
	case *raft.RequestVoteRequest:
		if g.refuse(r, req.Term, string(req.ID)) {
			rpc.Respond(&raft.RequestVoteResponse{RPCHeader: g.header(), Term: r.CurrentTerm()}, nil)
			return
		}
	case *raft.RequestPreVoteRequest:
		if g.refuse(r, req.Term, string(req.ID)) {
			rpc.Respond(&raft.RequestPreVoteResponse{RPCHeader: g.header(), Term: r.CurrentTerm()}, nil)
			return
		}
	}
	g.relay(rpc)
}

// reportedTerm is the term the join probe is answered with: raft's, or
// the vote floor when higher. A node catching up after a wipe (raft at
// term 0 until a leader reaches it) or one that has not raised its term
// to its floor yet knows the cluster reached that term; a peer
// bootstrapping on its answer must take it into its own floor, or a new
// cluster could elect again in a term that already had a leader.
func (g *voteGuard) reportedTerm(r *raft.Raft) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return max(r.CurrentTerm(), g.floor)
}

// relay hands rpc to raft, or answers it once the guard stopped.
func (g *voteGuard) relay(rpc raft.RPC) {
	select {
	case g.out <- rpc:
	case <-g.stop:
		rpc.Respond(emptyResponse(rpc.Command), raft.ErrRaftShutdown)
	}
}

// emptyResponse is a zero response of the type cmd expects: hashicorp/raft's
// in-memory pipeline dereferences an AppendEntries response without looking
// at the error.
func emptyResponse(cmd any) any {
	switch cmd.(type) {
	case *raft.AppendEntriesRequest:
		return &raft.AppendEntriesResponse{}
	case *raft.RequestVoteRequest:
		return &raft.RequestVoteResponse{}
	case *raft.RequestPreVoteRequest:
		return &raft.RequestPreVoteResponse{}
	case *raft.InstallSnapshotRequest:
		return &raft.InstallSnapshotResponse{}
	case *raft.TimeoutNowRequest:
		return &raft.TimeoutNowResponse{}
	}
	return nil
}

// header is the RPC header raft itself puts on its responses.
func (g *voteGuard) header() raft.RPCHeader {
	return raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(g.id),
		Addr: g.Transport.EncodePeer(g.id, g.Transport.LocalAddr())}
}

// sawLeader notes a current leader's contact; it runs on every
// AppendEntries, so it takes no lock.
func (g *voteGuard) sawLeader(current bool) {
	if current && !g.leader.Load() {
		g.leader.Store(true)
	}
}

// refuse reports whether a (pre-)vote request for term must be refused:
// while the node is not voting (undecided, catching up) and in terms up to
// the vote floor.
func (g *voteGuard) refuse(r *raft.Raft, term uint64, candidate string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.endCatchUpLocked(r)
	if g.mode == modeVoting && term > g.floor {
		return false
	}
	g.refused.Add(1)
	g.logger.Debug("vote refused", "candidate", candidate, "term", term,
		"mode", modeName(g.mode), "vote_floor", g.floor)
	return true
}

// endCatchUpLocked makes a node catching up vote again once a leader
// reached it and its log reached the target; the floor is then its
// current term, the leader's.
func (g *voteGuard) endCatchUpLocked(r *raft.Raft) {
	if g.mode == modeCatchingUp && g.leader.Load() && r.LastIndex() >= g.target {
		floor := max(g.floor, r.CurrentTerm())
		if err := g.persistLocked(modeVoting, 0, floor); err != nil {
			g.logger.Error("cannot record the end of catch-up", "error", err)
		} else {
			g.logger.Info("caught up after a wiped data directory: voting again",
				"last_index", r.LastIndex(), "vote_floor", floor)
		}
	}
}

// persistLocked stores and then adopts a new guard state.
func (g *voteGuard) persistLocked(mode, target, floor uint64) error {
	for _, kv := range []struct {
		key []byte
		v   uint64
	}{{keyVoteFloor, floor}, {keyGuardTarget, target}, {keyGuardMode, mode}} {
		if err := g.stable.SetUint64(kv.key, kv.v); err != nil {
			return errors.Join(ErrGuardState, err)
		}
	}
	g.mode, g.target, g.floor = mode, target, floor
	return nil
}

// set persists a new mode, target and floor (the floor never decreases).
func (g *voteGuard) set(mode, target, floor uint64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.persistLocked(mode, target, max(floor, g.floor))
}

func (g *voteGuard) currentMode() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mode
}

func modeName(m uint64) string {
	switch m {
	case modeVoting:
		return "voting"
	case modeUndecided:
		return "undecided"
	case modeCatchingUp:
		return "catching-up"
	}
	return "unknown"
}
