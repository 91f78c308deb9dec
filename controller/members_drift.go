//go:build embedded_controller

package controller

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/raftstore"
)

// joinWaitWarn is how long a node that joined with an empty data directory
// waits for a leader before it says it may not be a member.
const joinWaitWarn = 10 * time.Second

// driftWatch keeps what the last drift check found and logged: the
// configured controllerRaftPeers against the Raft configuration the node
// holds (membership lives in the log once bootstrapped).
type driftWatch struct {
	mu         sync.Mutex
	checked    bool
	current    string // raftstore.Drift.String(): "" when they agree
	leader     string // the last leader known
	joinWarned bool
	startedAt  time.Time
}

func (w *driftWatch) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.current
}

// driftStats adds members_drift (1 when the configured peers differ) to
// the Raft stats (metrics).
func (c *Controller) driftStats(m map[string]string) {
	m["members_drift"] = "0"
	if c.drift.text() != "" {
		m["members_drift"] = "1"
	}
}

// addDriftField adds raftMembersDrift to the 1005 reply when the
// configured peers differ from the Raft configuration.
func (c *Controller) addDriftField(m map[string]string) {
	if d := c.drift.text(); d != "" {
		m["raftMembersDrift"] = d
	}
}

// checkDrift compares the configured peers with the Raft configuration at
// start and on every reconcile: it logs one WARN naming both and the
// mqadmin commands to run at start, when the difference changes and when
// a new leader is known; one INFO when they agree again.
func (c *Controller) checkDrift() {
	d, err := c.node.Drift()
	if err != nil {
		return
	}
	text, leader := d.String(), c.node.LeaderID()
	w := &c.drift
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.checked {
		w.startedAt = time.Now()
	}
	first := !w.checked
	changed := text != w.current
	// The first leader known after start is no change of leadership.
	newLeader := leader != "" && w.leader != "" && leader != w.leader
	if leader != "" {
		w.leader = leader
	}
	w.checked, w.current = true, text
	c.warnJoinWait(w)
	switch {
	case text == "" && changed:
		c.logger.Info("controllerRaftPeers agree with the raft configuration again")
	case text != "" && (first || changed || newLeader):
		c.logger.Warn("controllerRaftPeers differ from the raft configuration the group holds: editing the peer "+
			"lists changes no membership; to change it as the lists say, run the commands, one at a time; "+
			"to keep it, make every node's lists match it",
			"configured", formatConfigured(d.Configured), "stored", formatConfigured(d.Stored),
			"run", c.driftCommands(d), "or_set", "controllerRaftPeers="+raftPeersValue(d.Stored), "leader", leader)
	}
}

// warnJoinWait says once, after joinWaitWarn without a leader, that a
// node waiting to be caught up may not be a member yet.
func (c *Controller) warnJoinWait(w *driftWatch) {
	if w.joinWarned || time.Since(w.startedAt) < joinWaitWarn || c.node.LeaderID() != "" {
		return
	}
	switch c.node.Stats()["vote_guard"] {
	case "voting":
		w.joinWarned = true // a voting node never goes back to catching up
		return
	case "catching-up":
	default:
		return
	}
	w.joinWarned = true
	cfg := c.config()
	self, _ := cfg.RaftPeers()
	addr := ""
	for _, p := range self {
		if p.ID == cfg.ControllerDLegerSelfId {
			addr = p.Addr
		}
	}
	c.logger.Warn("no leader has reached this node, which waits to be caught up: if it is new to the group, add it on the leader",
		"run", fmt.Sprintf("mqadmin addControllerMember -a %q -i %s -r %s (moved with its data directory: moveControllerMember with the same flags)",
			c.adminAddrs(), cfg.ControllerDLegerSelfId, addr),
		"waited", time.Since(w.startedAt).Round(time.Second))
}

// driftCommands names the mqadmin command for each difference, in the
// order to run them: moves, removals, then additions (one at a time,
// each once the previous one finished).
func (c *Controller) driftCommands(d raftstore.Drift) string {
	a := c.adminAddrs()
	var cmds []string
	for _, p := range d.Moved {
		cmds = append(cmds, fmt.Sprintf("mqadmin moveControllerMember -a %q -i %s -r %s", a, p.ID, p.RaftAddr))
	}
	for _, p := range d.Extra {
		cmds = append(cmds, fmt.Sprintf("mqadmin removeControllerMember -a %q -i %s", a, p.ID))
	}
	for _, p := range d.Missing {
		cmds = append(cmds, fmt.Sprintf("mqadmin addControllerMember -a %q -i %s -r %s", a, p.ID, p.RaftAddr))
	}
	if len(cmds) == 0 {
		return ""
	}
	return strings.Join(cmds, "; then ")
}

// raftPeersValue writes peers as controllerRaftPeers does: id-host:port;...
func raftPeersValue(peers []raftstore.Peer) string { return joinPeers(peers, "-", ";") }

// adminAddrs is the -a of the commands: every configured remoting address.
func (c *Controller) adminAddrs() string {
	addrs := make([]string, 0, len(c.peers))
	for _, p := range c.peers {
		addrs = append(addrs, p.Addr)
	}
	return strings.Join(addrs, ";")
}

// formatConfigured writes peers for a log line: id=host:port, ...
func formatConfigured(peers []raftstore.Peer) string { return joinPeers(peers, "=", ", ") }

func joinPeers(peers []raftstore.Peer, between, sep string) string {
	parts := make([]string, 0, len(peers))
	for _, p := range peers {
		parts = append(parts, p.ID+between+p.RaftAddr)
	}
	return strings.Join(parts, sep)
}
