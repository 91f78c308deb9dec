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

// resolveEmpty runs on a node started with empty stores and other peers:
// it probes them every JoinProbeInterval until a peer holds a log (join:
// catch up without voting) or a majority of the voters, counting itself,
// answered and none holds more than the bootstrap entry (a new cluster:
// bootstrap). It never decides on silence; it stops when the node closes.
func (n *Node) resolveEmpty(cfg *Config) {
	answers := make(chan probeAnswer)
	for _, p := range cfg.Peers {
		if p.ID != cfg.SelfID {
			n.spawn(func() { n.probeLoop(p, answers, cfg.JoinProbeInterval) })
		}
	}
	latest := map[string]probeAnswer{}
	tick := time.NewTicker(cfg.JoinProbeInterval)
	defer tick.Stop()
	for {
		select {
		case a := <-answers:
			latest[a.peer] = a
			if n.decide(cfg, latest) {
				return
			}
		case <-tick.C:
			n.probeRounds.Add(1)
			n.logger.Info("empty data directory: waiting for peers to bootstrap or join",
				"id", cfg.SelfID, "answered", answered(latest), "quorum", len(cfg.Peers)/2+1)
		case <-n.stop:
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

// decide joins or bootstraps when the answers allow it, and reports
// whether it did (or the node is closing).
func (n *Node) decide(cfg *Config, latest map[string]probeAnswer) bool {
	var target, floor uint64
	fresh := 1 // this node
	for _, a := range latest {
		if a.ok {
			target, floor = max(target, a.last), max(floor, a.term)
			if a.last <= freshLastIndex {
				fresh++
			}
		}
	}
	if target > freshLastIndex {
		return n.join(target, floor)
	}
	if fresh < len(cfg.Peers)/2+1 {
		return false
	}
	return n.bootstrap(cfg, floor)
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
func (n *Node) bootstrap(cfg *Config, floor uint64) bool {
	err := n.raft.BootstrapCluster(cfg.configuration()).Error()
	switch {
	case errors.Is(err, raft.ErrCantBootstrap):
		return n.join(n.raft.LastIndex(), floor)
	case err != nil:
		n.logger.Error("bootstrap failed", "id", n.id, "error", err)
		return true
	}
	if err := n.guard.set(modeVoting, 0, 0); err != nil {
		n.logger.Error("cannot record the bootstrap", "error", err)
		return true
	}
	n.bootstrapped.Store(true)
	n.logger.Info("new cluster: a majority of the peers answered with empty stores; bootstrapped",
		"id", n.id, "peers", len(cfg.Peers))
	return true
}
