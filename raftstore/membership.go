//go:build embedded_controller

package raftstore

import (
	"fmt"
	"strings"

	"github.com/hashicorp/raft"
)

// storedConfiguration returns the latest cluster configuration held by the
// stores: the newest configuration entry of the log, else the one of the
// newest snapshot (what raft.NewRaft itself would restore). ok is false
// when neither holds one.
func (p *parts) storedConfiguration() (raft.Configuration, bool, error) {
	var snapIdx uint64
	var cfg raft.Configuration
	found := false
	metas, err := p.snaps.List()
	if err != nil {
		return cfg, false, fmt.Errorf("raftstore: list snapshots: %w", err)
	}
	if len(metas) > 0 {
		cfg, snapIdx, found = metas[0].Configuration, metas[0].Index, true
	}
	logCfg, inLog, err := p.logConfiguration(snapIdx)
	if err != nil || inLog {
		return logCfg, inLog, err
	}
	return cfg, found, nil
}

// logConfiguration scans the log backwards, down to (not including)
// index after, for the newest configuration entry.
func (p *parts) logConfiguration(after uint64) (raft.Configuration, bool, error) {
	first, err := p.logs.FirstIndex()
	if err != nil {
		return raft.Configuration{}, false, fmt.Errorf("raftstore: read log: %w", err)
	}
	last, err := p.logs.LastIndex()
	if err != nil {
		return raft.Configuration{}, false, fmt.Errorf("raftstore: read log: %w", err)
	}
	for i := last; i >= max(first, after+1) && i > 0; i-- {
		var l raft.Log
		if err := p.logs.GetLog(i, &l); err != nil {
			return raft.Configuration{}, false, fmt.Errorf("raftstore: read log entry %d: %w", i, err)
		}
		if l.Type == raft.LogConfiguration {
			return raft.DecodeConfiguration(l.Data), true, nil
		}
	}
	return raft.Configuration{}, false, nil
}

// checkIdentity refuses to start a node whose id is not a server of the
// cluster configuration its stores hold: it would run under another
// node's identity (vote for itself under a peer's id). Its id at another
// address is a node moved with its data directory (acceptMove).
func (p *parts) checkIdentity(cfg *Config, g *voteGuard) error {
	stored, ok, err := p.storedConfiguration()
	if err != nil || !ok {
		return err
	}
	if err := p.checkOwner(cfg); err != nil {
		return err
	}
	self := cfg.selfAddr()
	for _, s := range stored.Servers {
		if string(s.ID) == cfg.SelfID && string(s.Address) == self {
			return nil
		}
	}
	if moved, err := p.acceptMove(cfg, stored, g); moved || err != nil {
		return err
	}
	return fmt.Errorf("%w: self id %s with raft address %s is not in the cluster configuration [%s] "+
		"stored in %s (controllerDLegerSelfId and controllerRaftPeers must name this node as when the "+
		"directory was written)", ErrIdentity, cfg.SelfID, self, formatServers(stored), cfg.Dir)
}

func formatServers(c raft.Configuration) string {
	parts := make([]string, 0, len(c.Servers))
	for _, s := range c.Servers {
		parts = append(parts, string(s.ID)+"="+string(s.Address))
	}
	return strings.Join(parts, ", ")
}
