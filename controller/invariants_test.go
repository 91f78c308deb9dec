//go:build embedded_controller

package controller

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// invariantChecker checks the election invariants over a history of
// observations: states (after each applied entry) and what was announced to
// brokers (code-0 election replies, 1008 notifications). Reusable by any
// test; every failure names the broker set and the epochs involved.
//
//   - one master per master epoch: every observation of (set, masterEpoch)
//     names the same master id (NoBrokerID counts as a value: "no master");
//   - the master of a set is a member of its sync-state set;
//   - master epoch and sync-state-set epoch never decrease while the set's
//     sync-state half exists (a removed and re-created half starts over, as
//     in Java, so its history is forgotten when it disappears).
type invariantChecker struct {
	t        testing.TB
	masterOf map[string]map[int32]int64 // set → master epoch → master id
	last     map[string]syncStateInfo   // set → last observed sync-state half
}

func newInvariantChecker(t testing.TB) *invariantChecker {
	return &invariantChecker{t: t, masterOf: map[string]map[int32]int64{}, last: map[string]syncStateInfo{}}
}

// observeState checks every set of s and records its master per epoch.
func (c *invariantChecker) observeState(s *state) {
	c.t.Helper()
	for name := range c.last {
		if _, ok := s.SyncState(name); !ok {
			delete(c.last, name)
			delete(c.masterOf, name)
		}
	}
	for _, name := range s.BrokerNames() {
		ss, ok := s.SyncState(name)
		if !ok {
			continue
		}
		if ss.MasterBrokerID != wire.NoBrokerID {
			require.Truef(c.t, slices.Contains(ss.SyncStateSet, ss.MasterBrokerID),
				"set %s: master %d not in sync-state set %v (master epoch %d)", name, ss.MasterBrokerID, ss.SyncStateSet, ss.MasterEpoch)
		}
		if prev, seen := c.last[name]; seen {
			require.GreaterOrEqualf(c.t, ss.MasterEpoch, prev.MasterEpoch, "set %s: master epoch went down", name)
			require.GreaterOrEqualf(c.t, ss.SyncStateSetEpoch, prev.SyncStateSetEpoch, "set %s: sync-state-set epoch went down", name)
		}
		c.last[name] = ss
		c.observeMaster(name, ss.MasterEpoch, ss.MasterBrokerID)
	}
}

// observeMaster records that master was (announced or applied as) the
// master of name in epoch, and fails if another master had that epoch.
func (c *invariantChecker) observeMaster(name string, epoch int32, master int64) {
	c.t.Helper()
	byEpoch, ok := c.masterOf[name]
	if !ok {
		byEpoch = map[int32]int64{}
		c.masterOf[name] = byEpoch
	}
	if prev, seen := byEpoch[epoch]; seen {
		require.Equalf(c.t, prev, master, "set %s: two masters for master epoch %d", name, epoch)
		return
	}
	byEpoch[epoch] = master
}

// observeElectReply records a reply sent to a broker or admin: a code-0
// election reply announces its master for its epoch.
func (c *invariantChecker) observeElectReply(name string, resp wire.ElectMasterResponse, err error) {
	c.t.Helper()
	if err != nil || resp.MasterBrokerID == nil || resp.MasterEpoch == nil {
		return
	}
	c.observeMaster(name, *resp.MasterEpoch, *resp.MasterBrokerID)
	if resp.Body != nil {
		require.Containsf(c.t, resp.Body.SyncStateSet, *resp.MasterBrokerID,
			"set %s: reply names master %d outside its sync-state set", name, *resp.MasterBrokerID)
	}
}

func TestInvariantCheckerDetectsViolations(t *testing.T) {
	ft := &fakeT{TB: t}
	c := newInvariantChecker(ft)
	st := newState()
	st.replicas["b"] = &replicaInfo{BrokerName: "b", Brokers: map[int64]brokerIDInfo{1: {}, 2: {}}}
	st.syncStates["b"] = &syncStateInfo{BrokerName: "b", MasterEpoch: 2, SyncStateSetEpoch: 2,
		SyncStateSet: []int64{1}, MasterBrokerID: 1}
	c.observeState(st)
	require.False(t, ft.failed)
	c.observeMaster("b", 2, 2)
	require.True(t, ft.failed, "two masters in epoch 2")

	ft.failed = false
	st.syncStates["b"].MasterEpoch = 1
	c.observeState(st)
	require.True(t, ft.failed, "master epoch went down")

	ft.failed = false
	st.syncStates["b"].MasterEpoch, st.syncStates["b"].MasterBrokerID = 3, 2
	c.observeState(st)
	require.True(t, ft.failed, "master outside the set")
}

// fakeT records failures instead of stopping the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) FailNow()              {}
func (f *fakeT) Helper()               {}
