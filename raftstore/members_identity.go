//go:build embedded_controller

package raftstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"
)

// keySelfID records, in the stable store, the id of the node that runs on
// the stores: a directory moves to a new address only with its own node.
var keySelfID = []byte("raftstore.SelfID")

// recordOwner stores cfg.SelfID as the stores' node (keySelfID).
func (p *parts) recordOwner(cfg *Config) error {
	if cur, err := p.stable.Get(keySelfID); err == nil && string(cur) == cfg.SelfID {
		return nil
	}
	if err := p.stable.Set(keySelfID, []byte(cfg.SelfID)); err != nil {
		return errors.Join(ErrGuardState, err)
	}
	return nil
}

// checkOwner refuses stores another node wrote (keySelfID); stores that
// name no writer pass (written by v1.0.0, which records none).
func (p *parts) checkOwner(cfg *Config) error {
	owner, err := p.stable.Get(keySelfID)
	switch {
	case err != nil && err.Error() != "not found":
		return errors.Join(ErrGuardState, err)
	case len(owner) > 0 && string(owner) != cfg.SelfID:
		return fmt.Errorf("%w: the directory %s was written by node %q, not %s (controllerDLegerSelfId)",
			ErrIdentity, cfg.Dir, owner, cfg.SelfID)
	}
	return nil
}

// acceptMove lets a node start with its data directory at a new Raft
// address: the stored configuration lists its id at another address. It
// refuses when something answers at the old address under this id (a copy
// of the directory would run twice), else it votes again only once a
// leader reached it at the new address and sent an entry past its log
// (the group was told: MoveMember), as a node joining after a wipe.
func (p *parts) acceptMove(cfg *Config, stored raft.Configuration, g *voteGuard) (bool, error) {
	var old string
	for _, s := range stored.Servers {
		if string(s.ID) == cfg.SelfID {
			old = string(s.Address)
		}
	}
	if old == "" {
		return false, nil
	}
	owner, err := p.stable.Get(keySelfID)
	if err != nil && err.Error() != "not found" {
		return false, errors.Join(ErrGuardState, err)
	}
	if string(owner) != cfg.SelfID {
		return false, fmt.Errorf("%w: self id %s is stored at raft address %s, not %s, and the directory %s was "+
			"written by %q: only the node that wrote a directory may move it to a new address "+
			"(a directory that names no writer was last run by v1.0.0: start it once at %s first)",
			ErrIdentity, cfg.SelfID, old, cfg.selfAddr(), cfg.Dir, owner, old)
	}
	if claimsID(p.trans, old, cfg.SelfID) {
		return false, fmt.Errorf("%w: raft address of %s moved from %s to %s, but a node answers at %s as %s: "+
			"stop it first (two processes must never share an id)", ErrIdentity, cfg.SelfID, old, cfg.selfAddr(), old, cfg.SelfID)
	}
	last, err := p.logs.LastIndex()
	if err != nil {
		return false, fmt.Errorf("raftstore: read log: %w", err)
	}
	if err := g.set(modeCatchingUp, last+1, 0); err != nil {
		return false, err
	}
	g.logger.Warn("raft address moved: no vote until the leader reaches this node at its new address "+
		"(tell the group with the membership move command on the leader)",
		"id", cfg.SelfID, "stored_addr", old, "addr", cfg.selfAddr(), "target_index", last+1)
	return true, nil
}

// claimsID reports whether the server at addr answers the probe as id.
func claimsID(trans raft.Transport, addr, id string) bool {
	req := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{
		ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(probeID),
	}}
	ch := make(chan bool, 1)
	go func() {
		var resp raft.AppendEntriesResponse
		err := trans.AppendEntries(raft.ServerID(id), raft.ServerAddress(addr), req, &resp)
		ch <- err == nil && string(resp.ID) == id
	}()
	select {
	case ok := <-ch:
		return ok
	case <-time.After(memberProbeTimeout):
		return false
	}
}
