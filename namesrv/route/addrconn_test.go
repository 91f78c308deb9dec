package route

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// TestUnregisterOnOpenConnectionKeepsOtherGroupsUntilClose: an address in
// two groups of its cluster sends UNREGISTER_BROKER for one of them while
// its connection stays open. As in Java, only the named group loses the
// address; the other keeps it and its topics. Once the connection closes,
// the address has neither a live entry nor an open connection, and the
// other group goes too (Java keeps it for ever).
func TestUnregisterOnOpenConnectionKeepsOtherGroupsUntilClose(t *testing.T) {
	h := newHarness(t, false)
	ch := newChan("A")
	r := reg("c1", "b0", "A", 0, body(1, "T0", "T1"))
	r.Channel = ch
	mustRegister(t, h, r)
	r = reg("c1", "broker-b", "A", 0, body(1, "T0", "T2"))
	r.Channel = ch
	mustRegister(t, h, r)
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "A", BrokerName: "broker-b", BrokerID: 0}))
	h.WaitIdle()
	require.Equal(t, []string{"b0"}, groupNames(h))
	require.Equal(t, map[int64]string{0: "A"}, h.Lookup("T1").Route.BrokerDatas[0].BrokerAddrs)
	require.Nil(t, h.Lookup("T2"))
	require.Equal(t, 0, h.Stats().LiveBrokers)

	_ = ch.Close()
	h.OnChannelClose(ch)
	h.WaitIdle()
	require.Empty(t, groupNames(h))
	require.Empty(t, h.ClusterInfo().ClusterAddrTable)
	require.Empty(t, h.AllTopics().TopicList)
}

// TestHeldIDRefusalOnOpenConnectionKeepsJavaTables: a registration over
// an open connection refused because a newer holder keeps the id (step 6)
// drops only the newcomer's live entry, as in Java: the group it
// registered under before keeps the address, and the pair's filter
// servers stay. The connection's close then sweeps both.
func TestHeldIDRefusalOnOpenConnectionKeepsJavaTables(t *testing.T) {
	h := newHarness(t, false)
	ch := newChan("A")
	r := reg("c1", "X", "A", 0, body(1, "TX", "T0"))
	r.Channel = ch
	r.Body.FilterServerList = []string{"f1"}
	mustRegister(t, h, r)
	holder := body(1, "TY", "T0")
	holder.DataVersion.StateVersion = 2
	mustRegister(t, h, reg("c1", "Y", "B", 0, holder))
	r = reg("c1", "Y", "A", 0, body(1, "TY", "T0"))
	r.Channel = ch
	mustRegister(t, h, r)
	require.ElementsMatch(t, []string{"X", "Y"}, groupNames(h))
	tx := h.Lookup("TX")
	require.NotNil(t, tx)
	require.Equal(t, map[int64]string{0: "A"}, tx.Route.BrokerDatas[0].BrokerAddrs)
	require.Equal(t, map[string][]string{"A": {"f1"}}, tx.Route.FilterServerTable)
	require.Equal(t, 1, h.Stats().LiveBrokers, "only the holder's")

	_ = ch.Close()
	h.OnChannelClose(ch)
	h.WaitIdle()
	require.Equal(t, []string{"Y"}, groupNames(h))
	require.Nil(t, h.Lookup("TX"))
	require.Empty(t, h.Lookup("T0").Route.FilterServerTable)
	h.Manager.mu.RLock()
	defer h.Manager.mu.RUnlock()
	require.Empty(t, h.filters)
	require.Empty(t, h.keptFilters)
	require.Empty(t, h.live.connAddrs)
	require.Empty(t, h.live.addrConns)
}
