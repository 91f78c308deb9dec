//go:build embedded_controller

package raftstore

import (
	"time"

	"github.com/hashicorp/raft"
)

// probeID is the server id the join probe presents: never a member, so a
// peer with a configuration rejects it at once and touches no state.
const probeID = "raftstore-join-probe"

// Keys of raft's StableStore (hashicorp/raft raft.go keyCurrentTerm,
// keyLastVoteTerm, keyLastVoteCand).
var (
	keyCurrentTerm  = []byte("CurrentTerm")
	keyLastVoteTerm = []byte("LastVoteTerm")
	keyLastVoteCand = []byte("LastVoteCand")
)

// spentVote is the candidate recorded for the term a wiped node joins at:
// no real candidate has it, so the node cannot vote again in that term.
const spentVote = "(vote lost with the wiped data directory)"

// probeCluster asks the other configured peers, over the Raft transport,
// for their current term, and returns the highest answered (0 if none
// answered, or none holds Raft state). A term-0 RequestVote from a
// non-member is refused by every peer that holds a configuration, and
// the refusal carries its term. It waits at most cfg.JoinProbeTimeout.
func (p *parts) probeCluster(cfg *Config) uint64 {
	answers := make(chan uint64, len(cfg.Peers))
	asked := 0
	for _, peer := range cfg.Peers {
		if peer.ID != cfg.SelfID {
			asked++
			go func() { answers <- probePeer(p.trans, peer) }()
		}
	}
	timer := time.NewTimer(cfg.JoinProbeTimeout)
	defer timer.Stop()
	var term uint64
	for range asked {
		select {
		case t := <-answers:
			term = max(term, t)
		case <-timer.C:
			return term
		}
	}
	return term
}

// probePeer returns the peer's current term, 0 when it does not answer.
func probePeer(trans raft.Transport, peer Peer) uint64 {
	req := &raft.RequestVoteRequest{RPCHeader: raft.RPCHeader{
		ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(probeID),
	}}
	var resp raft.RequestVoteResponse
	if err := trans.RequestVote(raft.ServerID(peer.ID), raft.ServerAddress(peer.RaftAddr), req, &resp); err != nil {
		return 0
	}
	return resp.Term
}

// joinAt prepares empty stores to join an existing cluster without
// bootstrapping: the current term is the cluster's, and the vote of that
// term is spent (the wiped directory may have held one).
func (p *parts) joinAt(term uint64) error {
	if err := p.stable.SetUint64(keyCurrentTerm, term); err != nil {
		return err
	}
	if err := p.stable.SetUint64(keyLastVoteTerm, term); err != nil {
		return err
	}
	return p.stable.Set(keyLastVoteCand, []byte(spentVote))
}
