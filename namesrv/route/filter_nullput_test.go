package route

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFilterServersErasedByLaterNullPut: pickupTopicRouteData puts the
// filter-server lookup of every address of each BrokerData in turn, null
// too, so a group of another cluster on the same address, listed after
// the group whose (cluster, address) has filter servers, erases them.
func TestFilterServersErasedByLaterNullPut(t *testing.T) {
	h := newHarness(t, false)
	withFilters := body(1, "t1", "t2")
	withFilters.FilterServerList = []string{"f1:1"}
	// aa and zz share bucket 0: listed in the order they were put.
	mustRegister(t, h, reg("c1", "aa", "a1", 0, withFilters))
	mustRegister(t, h, reg("c2", "zz", "a1", 0, body(1, "t1", "t2")))
	r := h.Lookup("t1").Route
	require.Equal(t, []string{"aa", "zz"}, []string{r.BrokerDatas[0].BrokerName, r.BrokerDatas[1].BrokerName})
	require.Nil(t, r.FilterServerTable["a1"], "erased by the later null put")

	only := body(1, "t3", "t4")
	only.FilterServerList = []string{"f1:1"}
	mustRegister(t, h, reg("c1", "aa", "a1", 0, only))
	require.Equal(t, []string{"f1:1"}, h.Lookup("t3").Route.FilterServerTable["a1"], "no later group: kept")
}
