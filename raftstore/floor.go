//go:build embedded_controller

package raftstore

import (
	"fmt"

	"github.com/hashicorp/raft"
)

// The vote floor on the sending side: a node that may have been wiped
// neither grants (guard.refuse) nor asks for votes in terms up to its
// floor, and after bootstrapping it adopts the floor as its term so that
// its elections start above it.

// RequestVote sends raft's vote request unless its term is not above the
// vote floor: this node may have voted in that term before a wipe, so it
// must not campaign in it either (its own vote would be a second one).
func (g *voteGuard) RequestVote(id raft.ServerID, target raft.ServerAddress,
	args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	if err := g.mayCampaign(); err != nil {
		return err
	}
	if err := g.aboveFloor(args.Term); err != nil {
		return g.raiseToFloor(err)
	}
	return g.Transport.RequestVote(id, target, args, resp)
}

// raiseToFloor makes raft adopt the vote floor as its term when one of
// its own (pre-)vote requests was refused for it, and returns refused.
// Raft's pre-vote does not raise its term, so a node whose floor is above
// raft's term (it stopped between recording the floor and adoptTerm, or
// a leader in a lower term caught it up after a join) would otherwise
// never campaign, and its refusals would carry its low term to the
// peers: a cluster that needs its vote could never elect. The term is
// handed to raft on a goroutine of the guard's: raft's shutdown waits for
// the goroutine asking for votes before it closes the transport, which
// is what stops the guard.
func (g *voteGuard) raiseToFloor(refused error) error {
	if !g.raising.CompareAndSwap(false, true) {
		return refused
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.raising.Store(false)
		g.mu.Lock()
		floor := g.floor
		g.mu.Unlock()
		if err := g.adoptTerm(floor); err != nil {
			g.logger.Warn("cannot raise the term to the vote floor", "vote_floor", floor, "error", err)
		}
	}()
	return refused
}

// mayCampaign returns ErrVoteFloor while the node is not voting: a node
// catching up after a wiped data directory holds only part of the log it
// had acknowledged, and a peer with a shorter one would elect it.
func (g *voteGuard) mayCampaign() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r := g.raft.Load(); r != nil {
		g.endCatchUpLocked(r)
	}
	if g.mode == modeVoting {
		return nil
	}
	g.campaignsRefused.Add(1)
	return fmt.Errorf("%w: not campaigning while %s", ErrVoteFloor, modeName(g.mode))
}

// aboveFloor returns ErrVoteFloor when term is not above the vote floor.
func (g *voteGuard) aboveFloor(term uint64) error {
	g.mu.Lock()
	floor := g.floor
	g.mu.Unlock()
	if term > floor {
		return nil
	}
	return fmt.Errorf("%w: term %d, vote floor %d", ErrVoteFloor, term, floor)
}

// adoptTerm makes raft adopt term without voting, when its current term
// is lower: it hands raft a vote request in this node's own name with an
// empty log, which hashicorp/raft's requestVote refuses (this node's log
// is longer) after adopting the newer term. It fails when raft did not
// adopt it (a leader is already known: raft refuses before looking at
// the term); elections then still stay above the floor (RequestVote).
func (g *voteGuard) adoptTerm(term uint64) error {
	r := g.raft.Load()
	if r.CurrentTerm() >= term {
		return nil
	}
	respCh := make(chan raft.RPCResponse, 1)
	req := &raft.RequestVoteRequest{RPCHeader: g.header(), Term: term}
	select {
	case g.out <- raft.RPC{Command: req, RespChan: respCh}:
	case <-g.stop:
		return raft.ErrRaftShutdown
	}
	select {
	case <-respCh:
	case <-g.stop:
		return raft.ErrRaftShutdown
	}
	if got := r.CurrentTerm(); got < term {
		return fmt.Errorf("%w: raft stayed at term %d below %d", ErrVoteFloor, got, term)
	}
	return nil
}
