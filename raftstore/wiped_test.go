//go:build embedded_controller

package raftstore

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"github.com/stretchr/testify/require"
)

// Keys of raft's StableStore (hashicorp/raft raft.go keyLastVoteTerm,
// keyLastVoteCand).
var (
	keyLastVoteTerm = []byte("LastVoteTerm")
	keyLastVoteCand = []byte("LastVoteCand")
)

// cutProbe is a transport whose outgoing AppendEntries calls (the join
// probe) fail while cut is set: the node's side of a partition, or peers
// too slow to answer, while it probes at start.
type cutProbe struct {
	*raft.NetworkTransport
	cut atomic.Bool
}

func (c *cutProbe) AppendEntries(id raft.ServerID, target raft.ServerAddress,
	args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	if c.cut.Load() {
		return errors.New("partitioned")
	}
	return c.NetworkTransport.AppendEntries(id, target, args, resp)
}

// lastVote reads the vote record a stopped node left in its raft.db.
func lastVote(t *testing.T, dir string) (uint64, string) {
	store, err := raftboltdb.NewBoltStore(filepath.Join(dir, logFileName))
	require.NoError(t, err)
	defer store.Close()
	term, err := store.GetUint64(keyLastVoteTerm)
	require.NoError(t, err)
	cand, err := store.Get(keyLastVoteCand)
	require.NoError(t, err)
	return term, string(cand)
}

// TestWipedNodeWithUnreachablePeersNeitherBootstrapsNorVotesTwice (from
// the attack review): a node whose data directory was wiped and whose
// peers do not answer its probe (a partition, a stalled peer, a power cut)
// must not bootstrap a cluster again: it would start at term 1 with no
// vote record and could grant a second vote in a term it already voted
// in. It keeps probing, refusing votes; once a peer answers it joins,
// and after catching up it still refuses votes up to the leader's term.
func TestWipedNodeWithUnreachablePeersNeitherBootstrapsNorVotesTwice(t *testing.T) {
	c := newTCPCluster(t, 3, nil)
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(5), applyN(t, leader, 5))
	var wiped string
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 5)
		if p.ID != leader.ID() {
			wiped = p.ID
		}
	}
	c.kill(wiped)
	voteTerm, voteCand := lastVote(t, c.dirs[wiped])
	t.Logf("cluster term %d; %s had voted in term %d for %q", statUint(t, leader, "term"), wiped, voteTerm, voteCand)
	require.NoError(t, os.RemoveAll(c.dirs[wiped]))

	nt, err := NewTCPTransport(c.addr(wiped), "", c.logger.Named(wiped))
	require.NoError(t, err)
	trans := &cutProbe{NetworkTransport: nt}
	trans.cut.Store(true) // peers unreachable while it probes
	n := c.open(wiped, trans)
	require.Eventually(t, func() bool { return n.probeRounds.Load() >= 3 }, 10*time.Second, 10*time.Millisecond)
	require.False(t, n.Bootstrapped(), "a wiped node bootstrapped a cluster its peers already form")
	require.Equal(t, "undecided", n.Stats()["vote_guard"])
	require.False(t, secondVote(t, c, wiped, leader.ID(), voteTerm), "an undecided node voted")

	trans.cut.Store(false)
	require.Eventually(t, func() bool { return n.Stats()["vote_guard"] == "catching-up" },
		10*time.Second, 10*time.Millisecond)
	require.Equal(t, int64(6), applyN(t, leader, 1))
	eventuallyValue(t, c.fsms[wiped], 6)
	granted := secondVote(t, c, wiped, leader.ID(), voteTerm)
	t.Logf("%s asked again for its vote in term %d by another candidate: granted=%v", wiped, voteTerm, granted)
	require.False(t, granted, "a node voted twice in term %d", voteTerm)
	require.Equal(t, "voting", n.Stats()["vote_guard"], "caught up: it votes in later terms")
	require.False(t, n.Bootstrapped())
}

// secondVote asks wiped, on behalf of the peer that is neither wiped nor
// the leader it voted for, for its vote in term (as that peer would when
// campaigning in the same term), and reports whether it was granted.
func secondVote(t *testing.T, c *tcpCluster, wiped, votedFor string, term uint64) bool {
	var other string
	for _, p := range c.peers {
		if p.ID != wiped && p.ID != votedFor {
			other = p.ID
		}
	}
	client, err := NewTCPTransport("127.0.0.1:0", "", c.logger.Named("candidate"))
	require.NoError(t, err)
	defer client.Close()
	req := &raft.RequestVoteRequest{
		RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(other),
			Addr: []byte(c.addr(other))},
		Term: term, LastLogIndex: 1 << 20, LastLogTerm: term,
		LeadershipTransfer: true, // past the leader-stickiness check, as a transfer target would be
	}
	var resp raft.RequestVoteResponse
	require.NoError(t, client.RequestVote(raft.ServerID(wiped), raft.ServerAddress(c.addr(wiped)), req, &resp))
	return resp.Granted
}

// TestWipedNodeDoesNotVoteBeforeCaughtUp (from the attack review): a
// wiped node that joins must not vote with its empty log, or it elects a
// peer lacking an entry the wiped node had acknowledged. Three nodes:
// n_b misses entry 6 (down), entry 6 commits on the leader and n_c; n_c is
// wiped; the leader dies; n_b comes back and n_c starts empty. n_c refuses
// n_b's votes (no leader: the cluster waits), also after a restart during
// catch-up, and once the old leader is back it is elected and entry 6
// survives.
func TestWipedNodeDoesNotVoteBeforeCaughtUp(t *testing.T) {
	c := newTCPCluster(t, 3, nil)
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(5), applyN(t, leader, 5))
	var followers []string
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 5)
		if p.ID != leader.ID() {
			followers = append(followers, p.ID)
		}
	}
	lagging, wiped, old := followers[0], followers[1], leader.ID()
	c.kill(lagging)
	require.Equal(t, int64(6), applyN(t, leader, 1), "entry 6 acknowledged")
	eventuallyValue(t, c.fsms[wiped], 6)
	c.kill(wiped)
	require.NoError(t, os.RemoveAll(c.dirs[wiped]))
	c.kill(old)

	b := c.open(lagging, nil)
	n := c.open(wiped, nil)
	requireRefusing(t, b, n)
	c.kill(wiped) // a restart during catch-up keeps refusing
	n = c.open(wiped, nil)
	require.Equal(t, "catching-up", n.Stats()["vote_guard"])
	requireRefusing(t, b, n)

	c.open(old, nil)
	newLeader := WaitForLeader(t, c.running()...)
	got := applyN(t, newLeader, 1)
	t.Logf("new leader %s; the next write made the counter %d (7 if acknowledged entry 6 survived)", newLeader.ID(), got)
	require.Equal(t, int64(7), got, "acknowledged entry 6 was lost")
	eventuallyValue(t, c.fsms[wiped], 7)
}

// requireRefusing waits until wiped, catching up, has refused three vote
// requests, and requires that neither it nor lagging became leader.
func requireRefusing(t *testing.T, lagging, wiped *Node) {
	t.Helper()
	require.Eventually(t, func() bool {
		return wiped.Stats()["vote_guard"] == "catching-up" && wiped.guard.refused.Load() >= 3
	}, 20*time.Second, 10*time.Millisecond)
	t.Logf("%s (wiped) refused %d vote requests", wiped.ID(), wiped.guard.refused.Load())
	require.False(t, lagging.IsLeader(), "%s elected with the vote of a node that is not caught up", lagging.ID())
	require.False(t, wiped.IsLeader())
}

// TestFreshClusterBootstrapsOnceAMajorityIsUp: on a first start a node
// alone does not bootstrap (its peers might hold a log it cannot see); it
// waits, undecided and refusing votes, until a second node of three is up.
func TestFreshClusterBootstrapsOnceAMajorityIsUp(t *testing.T) {
	c, transports := bindTCPCluster(t, 3, nil)
	n0 := c.open("n0", transports["n0"])
	require.Eventually(t, func() bool { return n0.probeRounds.Load() >= 3 }, 10*time.Second, 10*time.Millisecond)
	require.False(t, n0.Bootstrapped())
	require.Equal(t, "undecided", n0.Stats()["vote_guard"])
	require.NoError(t, transports["n2"].(raft.WithClose).Close()) // n2 stays down

	n1 := c.open("n1", transports["n1"])
	leader := WaitForLeader(t, n0, n1)
	require.Eventually(t, func() bool { return n0.Bootstrapped() && n1.Bootstrapped() },
		10*time.Second, 10*time.Millisecond)
	require.Equal(t, int64(1), applyN(t, leader, 1))
}
