//go:build embedded_controller

package controller

import (
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
)

// TestRaftCheckRefusesEntryOfNewerFormat: the Raft RPC check of a node
// asks its own format. A follower limited to format 1 refuses the
// AppendEntries that carries a cluster version entry, so it never stores
// nor applies it (its FSM never stops) and lags from there; once it reads
// format 2 (upgraded) it catches up. The other follower applies at once.
func TestRaftCheckRefusesEntryOfNewerFormat(t *testing.T) {
	var mu sync.Mutex
	fsms := map[string]*FSM{}
	fsmOf := func(id string) *FSM {
		mu.Lock()
		defer mu.Unlock()
		if fsms[id] == nil {
			fsms[id] = NewFSM(testLogger(t).Named(id))
		}
		return fsms[id]
	}
	cluster := raftstoretest.NewInmemCluster(t, 3, func(id string) raft.FSM { return fsmOf(id) },
		func(c *raftstore.Config) { c.CheckCommand = fsmOf(c.SelfID).checkEntry })
	leader := cluster.Leader(t)
	followers := cluster.Followers(t)
	old, other := fsmOf(followers[0].ID()), fsmOf(followers[1].ID())
	old.format.Store(formatV1)

	entry, err := encodeEntry(clusterVersionEvent{Version: formatClusterVersion})
	require.NoError(t, err)
	_, err = leader.Apply(t.Context(), entry)
	require.NoError(t, err)
	next, err := encodeEntry(applyBrokerIDEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "x:1",
		NewBrokerID: 1, RegisterCheckCode: "x:1;1"})
	require.NoError(t, err)
	_, err = leader.Apply(t.Context(), next)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return other.ClusterVersion() == formatClusterVersion && len(brokerNames(other)) == 1 },
		10*time.Second, time.Millisecond, "the format 2 follower did not apply")
	require.Equal(t, formatV1, old.ClusterVersion(), "the format 1 follower applied an entry it cannot read")
	require.Empty(t, brokerNames(old), "the format 1 follower skipped the entry it cannot read")

	old.format.Store(formatClusterVersion) // the node is upgraded
	require.Eventually(t, func() bool { return old.ClusterVersion() == formatClusterVersion && len(brokerNames(old)) == 1 },
		10*time.Second, time.Millisecond, "the upgraded follower did not catch up")
}

func brokerNames(f *FSM) []string {
	var names []string
	f.read(func(s *state) { names = s.BrokerNames() })
	return names
}
