//go:build embedded_controller

package raftstore

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fastMembers makes the promoter and the join probe run every 50 ms.
func fastMembers(cfg *Config) { cfg.JoinProbeInterval = 50 * time.Millisecond }

// addPeer binds a new transport for id, adds it to the configured peers
// (of the nodes opened from now on) and opens it with an empty directory.
func (c *tcpCluster) addPeer(id string) *Node {
	trans, err := NewTCPTransport("127.0.0.1:0", "", c.logger.Named(id))
	require.NoError(c.t, err)
	c.peers = append(c.peers, Peer{ID: id, RaftAddr: string(trans.LocalAddr())})
	c.dirs[id] = c.t.TempDir()
	return c.open(id, trans)
}

// addPeerAlone opens id with an empty directory and peer lists naming
// only itself: it bootstraps a group of its own.
func (c *tcpCluster) addPeerAlone(id string) *Node {
	trans, err := NewTCPTransport("127.0.0.1:0", "", c.logger.Named(id))
	require.NoError(c.t, err)
	cfg := Config{SelfID: id, Peers: []Peer{{ID: id, RaftAddr: string(trans.LocalAddr())}}, Dir: c.t.TempDir(),
		Transport: trans, Logger: c.logger.Named(id)}
	n, err := Open(cfg, &counterFSM{})
	require.NoError(c.t, err)
	c.t.Cleanup(func() { _ = n.Close() })
	WaitForLeader(c.t, n)
	return n
}

// dropPeer removes id from the configured peers of the nodes opened from now on.
func (c *tcpCluster) dropPeer(id string) {
	c.peers = slices.DeleteFunc(c.peers, func(p Peer) bool { return p.ID == id })
}

// followerOf is a running node other than leader and skip.
func (c *tcpCluster) followerOf(leader *Node, skip ...string) string {
	for _, p := range c.peers {
		if c.nodes[p.ID] != nil && p.ID != leader.ID() && !slices.Contains(skip, p.ID) {
			return p.ID
		}
	}
	c.t.Fatal("no follower left")
	return ""
}

// waitVoter waits until leader's configuration lists id as a voter.
func waitVoter(t *testing.T, leader *Node, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		members, err := leader.Configuration()
		return err == nil && slices.ContainsFunc(members, func(m Member) bool { return m.ID == id && m.Voter })
	}, 20*time.Second, 20*time.Millisecond, "%s never promoted", id)
}

// TestMemberReplacedAtNewAddressThenAnotherLost: a dead voter is removed,
// a machine at a new address is added as a non-voter and promoted once it
// caught up; then another voter dies and the group still elects a leader
// and commits.
func TestMemberReplacedAtNewAddressThenAnotherLost(t *testing.T) {
	c := newTCPCluster(t, 3, fastMembers)
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(5), applyN(t, leader, 5))
	dead := c.followerOf(leader)
	c.kill(dead)
	c.dropPeer(dead)
	ctx := context.Background()
	_, err := leader.RemoveMember(ctx, dead)
	require.NoError(t, err)

	fresh := c.addPeer("n3")
	require.Equal(t, "catching-up", eventuallyMode(t, fresh, "catching-up"))
	_, err = leader.AddMember(ctx, "n3", c.addr("n3"))
	require.NoError(t, err)
	m, err := leader.Membership(ctx)
	require.NoError(t, err)
	t.Logf("after add: %+v", m)
	waitVoter(t, leader, "n3")
	eventuallyValue(t, c.fsms["n3"], 5)

	// The membership survives a snapshot and a restart; a snapshot covers
	// the configuration once an entry follows it.
	other := c.followerOf(leader, "n3")
	require.Equal(t, int64(6), applyN(t, leader, 1))
	eventuallyValue(t, c.fsms[other], 6)
	require.Eventually(t, func() bool { return c.nodes[other].Snapshot() == nil }, 10*time.Second, 20*time.Millisecond,
		"a snapshot once the configuration entries are applied")
	c.kill(other)
	restarted := c.open(other, nil)
	members, err := restarted.Configuration()
	require.NoError(t, err)
	require.ElementsMatch(t, []string{leader.ID(), other, "n3"}, memberIDs(members))
	d, err := restarted.Drift()
	require.NoError(t, err)
	require.True(t, d.Empty(), "its peers were edited to the new membership: %s", d)

	c.kill(other)
	leader = WaitForLeader(t, c.running()...)
	require.Equal(t, int64(7), applyN(t, leader, 1))
	eventuallyValue(t, c.fsms["n3"], 7)
}

func eventuallyMode(t *testing.T, n *Node, mode string) string {
	t.Helper()
	require.Eventually(t, func() bool { return n.Stats()["vote_guard"] == mode }, 10*time.Second, 10*time.Millisecond)
	return n.Stats()["vote_guard"]
}

// TestMemberChangesRefused: only the leader changes membership; it never
// removes itself, an unknown id, nor a voter whose removal leaves no live
// majority; it adds no id or address twice; while a non-voter is pending
// every other change is refused, and removing the non-voter gives up.
func TestMemberChangesRefused(t *testing.T) {
	c := newTCPCluster(t, 3, fastMembers)
	leader := WaitForLeader(t, c.running()...)
	ctx := context.Background()
	f := c.nodes[c.followerOf(leader)]
	_, err := f.AddMember(ctx, "n9", "127.0.0.1:1")
	require.ErrorIs(t, err, ErrNotLeader)
	_, err = leader.RemoveMember(ctx, leader.ID())
	require.ErrorIs(t, err, ErrMemberChange)
	_, err = leader.RemoveMember(ctx, "n9")
	require.ErrorIs(t, err, ErrMemberChange)
	_, err = leader.AddMember(ctx, f.ID(), "127.0.0.1:1")
	require.ErrorIs(t, err, ErrMemberChange)
	_, err = leader.AddMember(ctx, "n9", f.Addr())
	require.ErrorIs(t, err, ErrMemberChange)
	_, err = leader.MoveMember(ctx, f.ID(), "127.0.0.1:1")
	require.ErrorContains(t, err, "still answers")

	alone := c.addPeerAlone("n7") // bootstrapped a group of its own
	_, err = leader.AddMember(ctx, "n7", alone.Addr())
	require.ErrorContains(t, err, "already holds a raft log")

	_, err = leader.AddMember(ctx, "n9", "127.0.0.1:1") // nobody there: never promoted
	require.NoError(t, err)
	_, err = leader.AddMember(ctx, "n8", "127.0.0.1:2")
	require.ErrorIs(t, err, ErrChangeInProgress)
	_, err = leader.RemoveMember(ctx, f.ID())
	require.ErrorIs(t, err, ErrChangeInProgress)
	_, err = leader.RemoveMember(ctx, "n9")
	require.NoError(t, err)

	down := c.followerOf(leader)
	c.kill(down)
	_, err = leader.RemoveMember(ctx, c.followerOf(leader, down))
	require.ErrorIs(t, err, ErrNoMajority)
	members, err := leader.Configuration()
	require.NoError(t, err)
	require.Len(t, members, 3, "nothing changed")
}

// TestMovedNodeRejoinsAtNewAddress: a stopped voter restarted with its data
// directory at a new Raft address starts (it is not refused) without
// voting; once the leader is told (MoveMember) it catches up, votes again,
// and the group survives losing another voter.
func TestMovedNodeRejoinsAtNewAddress(t *testing.T) {
	c := newTCPCluster(t, 3, fastMembers)
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(3), applyN(t, leader, 3))
	moved := c.followerOf(leader)
	eventuallyValue(t, c.fsms[moved], 3)
	c.kill(moved)
	trans, err := NewTCPTransport("127.0.0.1:0", "", c.logger.Named(moved))
	require.NoError(t, err)
	for i := range c.peers {
		if c.peers[i].ID == moved {
			c.peers[i].RaftAddr = string(trans.LocalAddr())
		}
	}
	n := c.open(moved, trans)
	require.Equal(t, "catching-up", n.Stats()["vote_guard"])
	d, err := n.Drift()
	require.NoError(t, err)
	require.Len(t, d.Moved, 1, "drift: %s", d)

	_, err = leader.MoveMember(context.Background(), moved, c.addr(moved))
	require.NoError(t, err)
	require.Equal(t, int64(4), applyN(t, leader, 1))
	eventuallyValue(t, c.fsms[moved], 4)
	eventuallyNoDrift(t, n)

	c.kill(c.followerOf(leader, moved))
	leader = WaitForLeader(t, c.running()...)
	require.Equal(t, int64(5), applyN(t, leader, 1))
}

func eventuallyNoDrift(t *testing.T, n *Node) {
	t.Helper()
	require.Eventually(t, func() bool {
		d, err := n.Drift()
		return err == nil && d.Empty()
	}, 10*time.Second, 10*time.Millisecond)
}

// TestMemberProbeRoundsBounded: a member that accepts connections and
// never answers holds each probe until the transport's 10 s timeout; a
// flood of listings leaves at most one probe to it running, not one per
// request.
func TestMemberProbeRoundsBounded(t *testing.T) {
	c := newTCPCluster(t, 3, fastMembers)
	leader := WaitForLeader(t, c.running()...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	_, err = leader.AddMember(context.Background(), "n9", ln.Addr().String())
	require.NoError(t, err)
	var wg sync.WaitGroup
	const listings = 50
	for range listings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			m, err := leader.Membership(ctx)
			if err == nil {
				require.Len(t, m.Members, 4)
			}
		}()
	}
	wg.Wait()
	left := leader.members.inflight.Load()
	t.Logf("%d listings against a silent member left %d probes running", listings, left)
	require.LessOrEqual(t, left, int64(1), "probes to the silent member are not bounded")
}

func memberIDs(members []Member) []string {
	var ids []string
	for _, m := range members {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestMembershipBoundedAtMaxMembers: an add to a configuration of
// MaxMembers servers is refused.
func TestMembershipBoundedAtMaxMembers(t *testing.T) {
	m := Membership{Members: make([]Member, MaxMembers-1)}
	require.NoError(t, m.room())
	m.Members = append(m.Members, Member{})
	require.ErrorIs(t, m.room(), ErrMemberChange)
}
