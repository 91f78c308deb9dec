//go:build embedded_controller

package controller

import (
	"bytes"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// typeRecorder is an FSM that records the first byte of every command
// entry it applies.
type typeRecorder struct {
	*FSM
	mu    sync.Mutex
	types []byte
}

func (r *typeRecorder) Apply(l *raft.Log) interface{} {
	if l.Type == raft.LogCommand && len(l.Data) > 0 {
		r.mu.Lock()
		r.types = append(r.types, l.Data[0])
		r.mu.Unlock()
	}
	return r.FSM.Apply(l)
}

func (r *typeRecorder) count(t eventType) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Count(r.types, []byte{byte(t)})
}

// versionGroup is three controllers whose FSMs start limited to format 1,
// standing for three nodes of v1.0.0; upgrade(id) stands for a restart of
// that node on this binary.
type versionGroup struct {
	ic   *inmemControllers
	recs map[string]*typeRecorder
}

func newVersionGroup(t *testing.T) *versionGroup {
	return newVersionGroupLogged(t, raftstoretest.TestLogger(t, "ctl"), nil)
}

// newVersionGroupLogged is newVersionGroup logging to logger, with props
// added to every node's config.
func newVersionGroupLogged(t *testing.T, logger hclog.Logger, tune func(*raftstore.Config), props ...string) *versionGroup {
	g := &versionGroup{recs: map[string]*typeRecorder{}}
	var mu sync.Mutex
	wrap := func(id string, f *FSM) raft.FSM {
		f.format.Store(formatV1)
		mu.Lock()
		defer mu.Unlock()
		g.recs[id] = &typeRecorder{FSM: f}
		return g.recs[id]
	}
	g.ic = newCluster(t, 3, wrapFSM(wrap), withOptions(withVersionPoll(10*time.Millisecond)), withLogger(logger), tuneRaft(tune), withProps(props...))
	return g
}

func (g *versionGroup) upgrade(id string) { g.ic.ctls[id].fsm.format.Store(formatClusterVersion) }

// rounds waits until the ready leader has polled the group n more times.
func (g *versionGroup) rounds(t *testing.T, n int64) {
	t.Helper()
	leader := g.ic.leader(t)
	from := leader.versionRounds.Load()
	require.Eventually(t, func() bool { return leader.versionRounds.Load() >= from+n },
		10*time.Second, time.Millisecond, "leader %s polled the group fewer than %d times", leader.node.ID(), n)
}

// waitVersion waits until every node applied cluster version want.
func (g *versionGroup) waitVersion(t *testing.T, want int) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, ctl := range g.ic.ctls {
			if ctl.fsm.ClusterVersion() != want {
				return false
			}
		}
		return true
	}, 10*time.Second, time.Millisecond, "cluster version not raised to %d", want)
}

// requireVersion checks every node's cluster version, the entries they
// applied and the 1005 fields.
func (g *versionGroup) requireVersion(t *testing.T, want int) {
	t.Helper()
	for id, ctl := range g.ic.ctls {
		require.Equal(t, want, ctl.fsm.ClusterVersion(), "node %s", id)
		// One entry, or more when a raise's apply timed out and was
		// written again (the entry is idempotent).
		raised := g.recs[id].count(eventClusterVersion)
		require.Equal(t, want > 1, raised > 0, "node %s applied %d cluster version entries", id, raised)
		md := invoke(t, ctl.Addr(), remoting.ControllerGetMetadataInfo, nil, nil).ExtFields
		require.Equal(t, map[string]string{extFormatVersion: strconv.Itoa(ctl.fsm.readsFormat()), extClusterVersion: strconv.Itoa(want)},
			map[string]string{extFormatVersion: md[extFormatVersion], extClusterVersion: md[extClusterVersion]}, "node %s 1005", id)
		require.NotEmpty(t, md[extBinaryVersion])
	}
}

// TestClusterVersionRaisedWhenEveryNodeReads: a rolling upgrade in
// process. Three nodes read format 1; one, then two are upgraded: the
// leader polls the group and keeps cluster version 1 (no type 66 entry,
// snapshots in format 2); once the third is upgraded it raises the
// version to 2 (one entry on every node) and snapshots are written in
// format 3, which a format 1 node refuses and a format 2 node restores.
func TestClusterVersionRaisedWhenEveryNodeReads(t *testing.T) {
	g := newVersionGroup(t)
	leader := g.ic.leader(t)
	apply := gatedCodes[remoting.ControllerApplyBrokerID]
	require.Equal(t, codeSuccess, invoke(t, leader.Addr(), remoting.ControllerApplyBrokerID, apply, nil).Code)
	ids := g.ic.cluster.IDs()
	for _, id := range ids[:2] {
		g.upgrade(id)
		g.rounds(t, 5)
		g.requireVersion(t, 1)
		snap := snapshotBytes(t, g.ic.ctls[id].fsm)
		require.Equal(t, byte(snapshotVersion), snap[len(snapshotMagic)], "snapshot version at cluster version 1")
	}
	g.upgrade(ids[2])
	g.waitVersion(t, formatClusterVersion)
	g.rounds(t, 5)
	g.requireVersion(t, 2)
	snap := snapshotBytes(t, g.ic.ctls[ids[0]].fsm)
	require.Equal(t, []byte{snapshotVersionCV, formatClusterVersion}, snap[len(snapshotMagic):len(snapshotMagic)+2])
	st, stats, err := readSnapshotUpTo(bytes.NewReader(snap), maxSnapshotBytes, formatClusterVersion)
	require.NoError(t, err)
	require.Equal(t, snapshotVersionCV, stats.Version)
	require.Equal(t, formatClusterVersion, st.version())
	require.Len(t, st.BrokerNames(), 1)
	_, _, err = readSnapshotUpTo(bytes.NewReader(snap), maxSnapshotBytes, formatV1)
	require.ErrorIs(t, err, errNewerFormat)
	t.Logf("format 1 node refuses the format 3 snapshot: %v", err)
}

// TestClusterVersionHeldByUnreachableNode: a node that does not answer
// 1005 holds the version (its format is unknown).
func TestClusterVersionHeldByUnreachableNode(t *testing.T) {
	g := newVersionGroup(t)
	leader := g.ic.leader(t)
	var other *Controller
	for id, ctl := range g.ic.ctls {
		if id != leader.node.ID() {
			other = ctl
			break
		}
	}
	require.NoError(t, other.ln.Close()) // its Raft node stays a voter
	for _, id := range g.ic.cluster.IDs() {
		g.upgrade(id)
	}
	g.rounds(t, 5)
	why := leader.tryRaise(t.Context())
	t.Logf("held: %s", why)
	require.Contains(t, why, other.node.ID())
	require.Equal(t, formatV1, leader.fsm.ClusterVersion())
}
