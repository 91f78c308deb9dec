//go:build embedded_controller

package raftstore

import (
	"errors"
	"time"

	"github.com/hashicorp/raft"
)

// probeID is the server id the join probe presents: never a member. The
// probe is a term-0 AppendEntries; a peer's vote guard answers it with its
// current term and last log index, and a peer without one (a previous
// version) answers the same through raft, which ignores an older term.
const probeID = "raftstore-join-probe"

// freshLastIndex is the highest last log index of a node that holds no
// more than the bootstrap configuration (index 1): no leader ever wrote
// to it (a new leader appends an entry at once).
const freshLastIndex = 1

// probeAnswer is one peer's answer to the join probe.
type probeAnswer struct {
	peer string
	ok   bool
	term uint64
	last uint64
}

// probePeer asks peer for its current term and last log index.
func probePeer(trans raft.Transport, peer Peer) probeAnswer {
	req := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{
		ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(probeID),
	}}
	var resp raft.AppendEntriesResponse
	err := trans.AppendEntries(raft.ServerID(peer.ID), raft.ServerAddress(peer.RaftAddr), req, &resp)
	return probeAnswer{peer: peer.ID, ok: err == nil, term: resp.Term, last: resp.LastLog}
}

// bootstrapGrace is how many probe intervals a node waits, once a
// majority answered empty, for the peers that have not answered yet: a
// slower peer holding a log makes it join instead of bootstrapping.
const bootstrapGrace = 3

// silentTermMargin is how many terms a peer that did not answer may be
// ahead of the highest term answered, as far as the vote floor of a node
// bootstrapping without its answer goes: elections it may have held with
// this node's lost votes while the answering peers were cut off from it.
// It costs nothing but larger term numbers (the node starts its own
// elections above the floor), so it is generous; it is still a bound, not
// a proof (README: wiped data directory).
const silentTermMargin = 100

// resolveEmpty runs on a node started with empty stores and other peers:
// it probes them every JoinProbeInterval until a peer holds a log (join:
// catch up without voting) or a majority of the voters, counting itself,
// answered and none holds more than the bootstrap entry (a new cluster:
// bootstrap, at once when every peer answered, else after the grace). It
// never decides on silence; it stops when the node closes.
func (n *Node) resolveEmpty(cfg *Config) {
	answers := make(chan probeAnswer)
	for _, p := range cfg.Peers {
		if p.ID != cfg.SelfID {
			n.spawn(func() { n.probeLoop(p, answers, cfg.JoinProbeInterval) })
		}
	}
	latest := map[string]probeAnswer{}
	var quorumSince time.Time // when a majority first answered empty
	tick := time.NewTicker(cfg.JoinProbeInterval)
	defer tick.Stop()
	for {
		select {
		case a := <-answers:
			latest[a.peer] = a
		case <-tick.C:
			n.probeRounds.Add(1)
			n.logger.Info("empty data directory: waiting for peers to bootstrap or join",
				"id", cfg.SelfID, "answered", answered(latest), "quorum", len(cfg.Peers)/2+1)
		case <-n.stop:
			return
		}
		if n.decide(cfg, latest, &quorumSince) {
			return
		}
	}
}

// probeLoop probes peer until the node closes, one RPC at a time.
func (n *Node) probeLoop(peer Peer, out chan<- probeAnswer, every time.Duration) {
	for {
		a := probePeer(n.guard.Transport, peer)
		select {
		case out <- a:
		case <-n.stop:
			return
		}
		select {
		case <-time.After(every):
		case <-n.stop:
			return
		}
	}
}

func answered(latest map[string]probeAnswer) int {
	k := 0
	for _, a := range latest {
		if a.ok {
			k++
		}
	}
	return k
}

// probeSummary is what the latest answers say together.
type probeSummary struct {
	answered int    // peers that answered
	fresh    int    // voters with no entry past the bootstrap one, counting this node
	target   uint64 // highest last log index answered
	term     uint64 // highest term answered
}

func summarize(latest map[string]probeAnswer) probeSummary {
	s := probeSummary{fresh: 1}
	for _, a := range latest {
		if a.ok {
			s.answered++
			s.target, s.term = max(s.target, a.last), max(s.term, a.term)
			if a.last <= freshLastIndex {
				s.fresh++
			}
		}
	}
	return s
}

// decide joins or bootstraps when the answers allow it, and reports
// whether it did (or the node is closing). A majority answering empty
// is not enough while a peer is silent: the silent one may hold a log,
// so the node waits bootstrapGrace rounds for it (quorumSince). An empty
// answer with a term above 1 is not taken as a sign of a running cluster:
// a peer of a new cluster that bootstrapped and campaigned answers so too,
// and nodes waiting on each other would never form it; the vote floor
// covers the elections such a term reveals.
func (n *Node) decide(cfg *Config, latest map[string]probeAnswer, quorumSince *time.Time) bool {
	s := summarize(latest)
	switch {
	case s.target > freshLastIndex:
		return n.join(s.target, s.term)
	case s.fresh < len(cfg.Peers)/2+1:
		*quorumSince = time.Time{}
		return false
	case s.answered == len(cfg.Peers)-1:
		return n.bootstrap(cfg, s.term)
	case quorumSince.IsZero():
		*quorumSince = time.Now()
		n.logger.Info("empty data directory: a majority answered empty; waiting for the other peers",
			"id", cfg.SelfID, "answered", s.answered, "grace", bootstrapGrace*cfg.JoinProbeInterval)
		return false
	case time.Since(*quorumSince) < bootstrapGrace*cfg.JoinProbeInterval:
		return false
	}
	return n.bootstrap(cfg, s.term+silentTermMargin)
}

// join records that the node catches up to target before voting, and
// that it never votes in a term up to floor (the peers' highest).
func (n *Node) join(target, floor uint64) bool {
	if err := n.guard.set(modeCatchingUp, target, floor); err != nil {
		n.logger.Error("cannot record the join after a wiped data directory", "error", err)
		return true
	}
	n.logger.Warn("empty data directory and a peer holds raft state: joining without bootstrap; "+
		"no vote until the leader caught this node up", "id", n.id, "target_index", target, "term", floor)
	return true
}

// bootstrap seeds the configured peers into the running raft. If raft
// already holds state (a leader reached it first), it joins instead.
// This node may have been wiped after voting in a term up to floor, the
// highest term a peer may hold as far as the answers tell: it refuses
// votes in terms up to floor and starts its own elections above it.
func (n *Node) bootstrap(cfg *Config, floor uint64) bool {
	err := n.raft.BootstrapCluster(cfg.configuration()).Error()
	switch {
	case errors.Is(err, raft.ErrCantBootstrap):
		return n.join(n.raft.LastIndex(), floor)
	case err != nil:
		n.logger.Error("bootstrap failed", "id", n.id, "error", err)
		return true
	}
	if err := n.guard.set(modeVoting, 0, floor); err != nil {
		n.logger.Error("cannot record the bootstrap", "error", err)
		return true
	}
	if err := n.guard.adoptTerm(floor); err != nil {
		n.logger.Warn("bootstrapped below the vote floor; elections wait for a higher term",
			"id", n.id, "vote_floor", floor, "error", err)
	}
	n.bootstrapped.Store(true)
	n.logger.Info("new cluster: a majority of the peers answered with empty stores; bootstrapped",
		"id", n.id, "peers", len(cfg.Peers), "vote_floor", floor, "term", n.raft.CurrentTerm())
	return true
}
