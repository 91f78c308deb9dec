//go:build embedded_controller

package raftstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/raft"
)

// runPromoter runs on every node for its lifetime: while it leads, every
// interval it promotes the pending non-voter once that one caught up.
func (n *Node) runPromoter(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-n.stop:
			return
		}
		if n.IsLeader() {
			n.promoteCaughtUp()
		}
	}
}

// promoteCaughtUp promotes the pending non-voter when it holds the
// leader's last entry of the round that first saw it (so the entry that
// added it), is within MaxPromoteLag entries of the leader's last
// index, and the voters with it hold a live majority. A change running
// meanwhile makes it wait for the next round.
func (n *Node) promoteCaughtUp() {
	if !n.members.mu.TryLock() {
		return
	}
	defer n.members.mu.Unlock()
	cfg, err := n.leaderConfiguration()
	if err != nil || !hasNonvoter(cfg) {
		return
	}
	m := n.probeMembers(context.Background(), cfg)
	p, ok := m.pending()
	if !ok {
		return
	}
	if n.members.pending != p.ID {
		n.members.pending, n.members.floor = p.ID, m.LeaderLastIndex
	}
	if why := m.notReady(p, n.members.floor); why != "" {
		n.logger.Debug("non-voter not promoted yet", "member", p.ID, "reason", why)
		return
	}
	start := time.Now()
	f := n.raft.AddVoter(raft.ServerID(p.ID), raft.ServerAddress(p.RaftAddr), 0, changeTimeout)
	if err := n.wait(context.Background(), f); err != nil {
		n.logger.Warn("promotion to voter failed; retried", "member", p.ID, "error", err)
		return
	}
	n.logger.Info("member caught up: promoted to voter", "member", p.ID, "addr", p.RaftAddr,
		"last_index", p.LastIndex, "leader_last_index", m.LeaderLastIndex, "index", f.Index(),
		"took", time.Since(start))
}

// notReady says why p cannot be promoted now ("" when it can): floor is
// an index at or above the entry that added it.
func (m Membership) notReady(p Member, floor uint64) string {
	switch {
	case !p.Reachable:
		return "does not answer"
	case p.LastIndex < floor:
		return fmt.Sprintf("last index %d is before %d, past the entry that added it", p.LastIndex, floor)
	case p.LastIndex+MaxPromoteLag < m.LeaderLastIndex:
		return fmt.Sprintf("last index %d is more than %d behind the leader's %d", p.LastIndex, MaxPromoteLag, m.LeaderLastIndex)
	}
	total, live := 0, 0
	for _, s := range m.Members {
		if s.Voter || s.ID == p.ID {
			total++
			if s.Reachable {
				live++
			}
		}
	}
	if live < total/2+1 {
		return fmt.Sprintf("%d of the %d voters it would make answer", live, total)
	}
	return ""
}

func hasNonvoter(cfg raft.Configuration) bool {
	for _, s := range cfg.Servers {
		if s.Suffrage != raft.Voter {
			return true
		}
	}
	return false
}
