//go:build embedded_controller

package raftstore

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/raft"
)

// The group identity. A group restored from a backup (RestoreBackup) has
// a group id, kept in the stable store under keyGroupID; a group formed by
// bootstrap has none. A node with an id puts it after its address in the
// header of every RPC it sends (EncodePeer; DecodePeer takes it off
// again, so raft sees plain addresses), and every node refuses an inbound
// RPC whose group differs from its own: no node of the group a backup was
// taken from (no id, or another one) can vote in, lead or be led by the
// restored group, even at the same ids and addresses. A node with empty
// stores and no id (a wiped member of the restored group) takes the id
// of the first RPC that carries one.

// keyGroupID holds the group id in the stable store.
var keyGroupID = []byte("raftstore.GroupID")

// groupSep separates the address from the group id in an RPC header; a
// host:port never holds a NUL.
const groupSep = "\x00group="

// maxGroupID bounds the group id an RPC may carry.
const maxGroupID = 64

// loadGroup reads the stored group id (none: empty).
func (g *voteGuard) loadGroup() error {
	v, err := g.stable.Get(keyGroupID)
	if err != nil && err.Error() != "not found" {
		return fmt.Errorf("%w: %w", ErrGuardState, err)
	}
	g.groupMu.Lock()
	g.group = string(v)
	g.groupMu.Unlock()
	return nil
}

func (g *voteGuard) groupID() string {
	g.groupMu.Lock()
	defer g.groupMu.Unlock()
	return g.group
}

// EncodePeer implements raft.Transport: the inner encoding, followed by
// the group id when the node has one.
func (g *voteGuard) EncodePeer(id raft.ServerID, addr raft.ServerAddress) []byte {
	b := g.Transport.EncodePeer(id, addr)
	if group := g.groupID(); group != "" {
		b = append(append(b, groupSep...), group...)
	}
	return b
}

// DecodePeer implements raft.Transport: the address without a group id.
func (g *voteGuard) DecodePeer(b []byte) raft.ServerAddress {
	addr, _ := splitGroup(b)
	return g.Transport.DecodePeer(addr)
}

func splitGroup(b []byte) (addr []byte, group string) {
	i := bytes.Index(b, []byte(groupSep))
	if i < 0 {
		return b, ""
	}
	return b[:i], string(b[i+len(groupSep):])
}

// checkGroup refuses an RPC of another group. The join probe (no address)
// carries none and passes: it changes nothing.
func (g *voteGuard) checkGroup(cmd any) error {
	h, ok := cmd.(raft.WithRPCHeader)
	if !ok {
		return nil
	}
	header := h.GetRPCHeader()
	if string(header.ID) == probeID {
		return nil
	}
	_, theirs := splitGroup(header.Addr)
	if len(theirs) > maxGroupID {
		return fmt.Errorf("%w: group id of %d bytes, more than %d", ErrBadRPC, len(theirs), maxGroupID)
	}
	ours := g.groupID()
	if theirs == ours || g.adoptGroup(theirs) {
		return nil
	}
	return fmt.Errorf("%w: rpc from %q of raft group %s, this node is in group %s (a node of another group, "+
		"e.g. the one a restored backup was taken from, must not join this one: wipe its data directory)",
		ErrGroup, header.ID, groupName(theirs), groupName(ours))
}

// groupName names a group id in a message.
func groupName(id string) string {
	if id == "" {
		return "(none: bootstrapped, not restored)"
	}
	return fmt.Sprintf("%q", id)
}

// adoptGroup takes group as this node's when it has no id and no state
// (a wiped node joining a restored group), and reports whether it did.
func (g *voteGuard) adoptGroup(group string) bool {
	r := g.raft.Load()
	if group == "" || r == nil || r.LastIndex() != 0 {
		return false
	}
	g.groupMu.Lock()
	defer g.groupMu.Unlock()
	if g.group != "" {
		return g.group == group
	}
	if err := g.stable.Set(keyGroupID, []byte(group)); err != nil {
		g.logger.Error("cannot record the raft group id", "group", group, "error", err)
		return false
	}
	g.group = group
	g.logger.Info("empty data directory: joined raft group", "group", group)
	return true
}
