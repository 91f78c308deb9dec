//go:build embedded_controller

package raftstore

import (
	"strings"
)

// Drift is how the configured peers (Config.Peers) differ from the
// latest Raft configuration the node holds: membership lives in the log
// once bootstrapped, so an edited peer list changes nothing by itself.
type Drift struct {
	Configured []Peer // Config.Peers
	Stored     []Peer // the latest configuration, voters and non-voters
	Missing    []Peer // configured, not stored (to add)
	Extra      []Peer // stored, not configured (to remove)
	Moved      []Peer // both, at another address: the configured address (to move)
}

// Empty reports whether the configured peers and the stored configuration agree.
func (d Drift) Empty() bool { return len(d.Missing)+len(d.Extra)+len(d.Moved) == 0 }

// String is "configured [..] stored [..]" plus what differs, "" when nothing does.
func (d Drift) String() string {
	if d.Empty() {
		return ""
	}
	var b strings.Builder
	b.WriteString("configured [" + formatPeers(d.Configured) + "] stored [" + formatPeers(d.Stored) + "]")
	for _, part := range []struct {
		name  string
		peers []Peer
	}{{"not stored", d.Missing}, {"not configured", d.Extra}, {"at another address", d.Moved}} {
		if len(part.peers) > 0 {
			b.WriteString("; " + part.name + ": " + formatPeers(part.peers))
		}
	}
	return b.String()
}

// Drift compares the configured peers with the node's latest Raft
// configuration (a node that holds none yet has no drift).
func (n *Node) Drift() (Drift, error) {
	stored, err := n.Configuration()
	if err != nil || len(stored) == 0 {
		return Drift{}, err
	}
	d := Drift{Configured: n.configured}
	byID := map[string]string{}
	for _, s := range stored {
		d.Stored = append(d.Stored, Peer{ID: s.ID, RaftAddr: s.RaftAddr})
		byID[s.ID] = s.RaftAddr
	}
	conf := map[string]bool{}
	for _, p := range n.configured {
		conf[p.ID] = true
		addr, ok := byID[p.ID]
		switch {
		case !ok:
			d.Missing = append(d.Missing, p)
		case addr != p.RaftAddr:
			d.Moved = append(d.Moved, p)
		}
	}
	for _, s := range d.Stored {
		if !conf[s.ID] {
			d.Extra = append(d.Extra, s)
		}
	}
	return d, nil
}

func formatPeers(peers []Peer) string {
	parts := make([]string, 0, len(peers))
	for _, p := range peers {
		parts = append(parts, p.ID+"="+p.RaftAddr)
	}
	return strings.Join(parts, ", ")
}
