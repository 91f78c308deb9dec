package route

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// groupNames lists the groups of the cluster info.
func groupNames(h *harness) []string {
	var out []string
	for name := range h.ClusterInfo().BrokerAddrTable {
		out = append(out, name)
	}
	return out
}

// TestRenamedBeforeQueuedUnregistrationLeavesNoGroup: an address registers
// as b0, its connection closes, and it registers as broker-b over a new
// connection before the queued unregistration is applied. The
// unregistration removes b0 (as Java does) and keeps broker-b's live
// entry; the close of the new connection then leaves nothing.
func TestRenamedBeforeQueuedUnregistrationLeavesNoGroup(t *testing.T) {
	h := newHarness(t, false)
	old, cur := newChan("old"), newChan("new")
	r := reg("c1", "b0", "A", 0, body(1, "T0", "T1"))
	r.Channel = old
	mustRegister(t, h, r)
	h.OnChannelClose(old)
	r = reg("c1", "broker-b", "A", 0, body(1, "T0", "T2"))
	r.Channel = cur
	mustRegister(t, h, r)
	h.WaitIdle()
	require.Equal(t, []string{"broker-b"}, groupNames(h))
	require.Nil(t, h.Lookup("T1"), "b0's own topic goes with it")
	require.Equal(t, map[int64]string{0: "A"}, h.Lookup("T0").Route.BrokerDatas[0].BrokerAddrs)
	require.Equal(t, 1, h.Stats().LiveBrokers, "broker-b's live entry stays")

	h.OnChannelClose(cur)
	h.WaitIdle()
	require.Empty(t, groupNames(h))
	require.Empty(t, h.ClusterInfo().ClusterAddrTable)
	require.Empty(t, h.AllTopics().TopicList)
}

// TestAddressInTwoGroupsClosedLeavesNeither: an address in two groups of
// its cluster loses both when its connection closes (Java keeps one).
func TestAddressInTwoGroupsClosedLeavesNeither(t *testing.T) {
	h := newHarness(t, false)
	ch := newChan("A")
	r := reg("c1", "b0", "A", 1, body(1, "T0", "T1"))
	r.Channel = ch
	mustRegister(t, h, r)
	r = reg("c1", "broker-b", "A", 0, body(1, "T0", "T2"))
	r.Channel = ch
	mustRegister(t, h, r)
	require.Len(t, groupNames(h), 2)
	h.OnChannelClose(ch)
	h.WaitIdle()
	require.Empty(t, groupNames(h))
	require.Empty(t, h.AllTopics().TopicList)
}

// TestHeldIDRefusalDropsAddressFromOtherGroups: a registration without a
// connection refused because a newer holder keeps the id (step 6) drops
// the newcomer's live entry; the group it registered under before, which
// neither a live entry nor a connection backs any more, loses the address
// too (over an open connection it stays until the close:
// TestHeldIDRefusalOnOpenConnectionKeepsJavaTables).
func TestHeldIDRefusalDropsAddressFromOtherGroups(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "X", "A", 0, body(1, "TX", "T0")))
	holder := body(1, "TY", "T0")
	holder.DataVersion.StateVersion = 2
	mustRegister(t, h, reg("c1", "Y", "B", 0, holder))
	r := reg("c1", "Y", "A", 0, body(1, "TY", "T0"))
	r.Body.FilterServerList = []string{"f1"}
	mustRegister(t, h, r)
	require.Equal(t, []string{"Y"}, groupNames(h))
	require.Equal(t, map[int64]string{0: "B"}, h.Lookup("T0").Route.BrokerDatas[0].BrokerAddrs)
	require.Nil(t, h.Lookup("TX"))
	require.Equal(t, 1, h.Stats().LiveBrokers)
}

// TestRenamedInOneClusterKeepsGroupLiveInAnother: an address registered
// as b0 in two clusters and then renamed in one of them keeps b0 while
// its entry of the other cluster is b0's and live; closing every
// connection then leaves nothing.
func TestRenamedInOneClusterKeepsGroupLiveInAnother(t *testing.T) {
	h := newHarness(t, false)
	ch1, ch2, ch3 := newChan("1"), newChan("2"), newChan("3")
	for _, r := range []struct {
		cluster, name string
		ch            *fakeChan
	}{{"c1", "b0", ch1}, {"c2", "b0", ch2}} {
		req := reg(r.cluster, r.name, "A", 0, body(1, "T0", "T1"))
		req.Channel = r.ch
		mustRegister(t, h, req)
	}
	h.OnChannelClose(ch1)
	req := reg("c1", "broker-b", "A", 0, body(1, "T0", "T2"))
	req.Channel = ch3
	mustRegister(t, h, req)
	h.WaitIdle()
	require.ElementsMatch(t, []string{"b0", "broker-b"}, groupNames(h))
	require.Equal(t, map[int64]string{0: "A"}, h.ClusterInfo().BrokerAddrTable["b0"].BrokerAddrs)

	h.OnChannelClose(ch2)
	h.OnChannelClose(ch3)
	h.WaitIdle()
	require.Empty(t, groupNames(h))
	require.Empty(t, h.AllTopics().TopicList)
}
