//go:build embedded_controller

package controller

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// applyRaw applies raw entry bytes through FSM.Apply.
func (f *testFSM) applyRaw(data []byte) *applyResult {
	f.t.Helper()
	f.index++
	res, ok := f.fsm.Apply(&raft.Log{Index: f.index, Type: raft.LogCommand, Data: data}).(*applyResult)
	require.True(f.t, ok)
	return res
}

// requireSizeExact checks the incrementally kept size against a full count.
func requireSizeExact(t *testing.T, f *testFSM) {
	t.Helper()
	f.fsm.read(func(s *state) {
		require.True(t, s.sized)
		require.Equal(t, s.scanBytes(), s.size, "the accounted size drifted from the state")
	})
}

// TestLegacyEntriesBreakingTheRulesApplyAsBefore:
// entries an older version wrote (no "checked" field) with an empty name,
// a name of invalid UTF-8 bytes and a 1 MiB name are applied as before,
// counted and logged; the node keeps going, later valid entries apply, and
// the accounted size stays exact.
func TestLegacyEntriesBreakingTheRulesApplyAsBefore(t *testing.T) {
	f := newTestFSM(t)
	huge := strings.Repeat("x", 1<<20)
	legacy := [][]byte{
		mustEntry(t, applyBrokerIDEvent{ClusterName: "c", BrokerName: "", BrokerAddress: "a:1", NewBrokerID: 1,
			RegisterCheckCode: "a:1;1", Fenced: true}),
		append([]byte{byte(eventApplyBrokerID)},
			`{"clusterName":"c","brokerName":"b`+"\xff"+`","brokerAddress":"a:1","newBrokerId":1,"registerCheckCode":"a:1;1"}`...),
		mustEntry(t, applyBrokerIDEvent{ClusterName: huge, BrokerName: huge, BrokerAddress: "a:1", NewBrokerID: 1,
			RegisterCheckCode: "a:1;1"}),
		mustEntry(t, updateBrokerAddressEvent{ClusterName: "c", BrokerName: "", BrokerAddress: "", BrokerID: 1}),
	}
	for i, data := range legacy {
		res := f.applyRaw(data)
		require.NoError(t, res.Err, "legacy entry %d", i)
	}
	names := f.state().BrokerNames()
	require.Equal(t, []string{"", "b\uFFFD", huge}, names, "applied as before")
	// b\xff decodes as b\uFFFD, a name that passes: three are counted.
	require.Equal(t, uint64(3), f.fsm.legacy.n.Load(), "each counted once")
	requireSizeExact(t, f)

	var evs []event
	var err error
	f.fsm.read(func(s *state) { _, evs, err = s.ApplyBrokerID(applyIDReq("DefaultCluster", "broker_a.1", 1)) })
	require.NoError(t, err)
	require.NoError(t, f.apply(evs...).Err)
	f.apply(cleanBrokerDataEvent{BrokerName: huge, Fence: &fence{MasterBrokerID: -1}})
	require.Equal(t, []string{"", "broker_a.1", "b\uFFFD"}, f.state().BrokerNames())
	require.Equal(t, uint64(3), f.fsm.legacy.n.Load(), "checked entries are not counted")
	requireSizeExact(t, f)
}

// TestCheckedEntryBreakingTheRulesIsRejectedByApply: an entry of this
// version (checked) whose fields break the rules, which no leader of this
// version writes, changes nothing on any node and answers 2005.
func TestCheckedEntryBreakingTheRulesIsRejectedByApply(t *testing.T) {
	f := newTestFSM(t)
	bad := []event{
		applyBrokerIDEvent{ClusterName: "c", BrokerName: "", BrokerAddress: "a:1", NewBrokerID: 1,
			RegisterCheckCode: "a:1;1", Fenced: true, Checked: true},
		applyBrokerIDEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "z:1", NewBrokerID: 1,
			RegisterCheckCode: "a:1;1", Fenced: true, Checked: true},
		applyBrokerIDEvent{ClusterName: strings.Repeat("c", 256), BrokerName: "b", BrokerAddress: "a:1", NewBrokerID: 1,
			RegisterCheckCode: "a:1;1", Fenced: true, Checked: true},
	}
	for _, ev := range bad {
		res := f.apply(ev)
		require.Equal(t, remoting.ControllerInvalidRequest, codeOf(res.Err), "%v", res.Err)
	}
	require.Empty(t, f.state().BrokerNames())
	registerSet(f, "c", "b", 1)
	res := f.apply(updateBrokerAddressEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "no-port", BrokerID: 1,
		Checked: true})
	require.Equal(t, remoting.ControllerInvalidRequest, codeOf(res.Err))
	r, _ := f.state().Replicas("b")
	require.Equal(t, addrOf(1), r.Brokers[1].Address)
	requireSizeExact(t, f)
}

// TestNameRulesAcceptRealNames: names real deployments use pass, the
// classes the rules exist for do not.
func TestNameRulesAcceptRealNames(t *testing.T) {
	for _, ok := range []string{"broker-a", "broker-a-s", "DefaultCluster", "broker_a.1", "%RETRY%x", "a|b",
		"rmq-broker-0.rmq-broker.ns.svc.cluster.local", "RaftNode00", "broker a", "集群-1", "b\uFFFD",
		strings.Repeat("n", 253)} {
		require.Empty(t, nameRule(ok, defaultLimits.NameLength), ok)
	}
	for _, bad := range []string{"", " b", "b\t", "b\x00", "b\x7f", "b\u0085", "b\u200b", "b\u202e", "\ufeffb",
		"b\xff", strings.Repeat("n", 254)} {
		require.NotEmpty(t, nameRule(bad, defaultLimits.NameLength), "%q", bad)
	}
	for _, ok := range []string{"127.0.0.1:10911", "[::1]:10911", "fe80::1:10911", "broker-0.svc:30911"} {
		require.Empty(t, addrRule(ok), ok)
	}
	for _, bad := range []string{"", "host", ":1", "h:0", "h:65536", "h:x", "h :1", "h;1:1", strings.Repeat("h", 262) + ":1"} {
		require.NotEmpty(t, addrRule(bad), "%q", bad)
	}
	require.Empty(t, checkCodeRule("127.0.0.1:10911;1700000000000"))
	require.NotEmpty(t, checkCodeRule("127.0.0.1:10911;x"))
}

// TestValidatedTypesBuiltOnlyByParse: outside field_rules.go, no source file of
// the package converts a string into a validated type.
func TestValidatedTypesBuiltOnlyByParse(t *testing.T) {
	validated := map[string]bool{"clusterName": true, "brokerName": true, "brokerAddr": true, "checkCode": true}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || path == "field_rules.go" {
			continue
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && validated[id.Name] {
					t.Errorf("%s converts to %s: only field_rules.go's parse functions may", fset.Position(call.Pos()), id.Name)
				}
			}
			return true
		})
	}
}

func mustEntry(t *testing.T, evs ...event) []byte {
	t.Helper()
	data, err := encodeEntry(evs...)
	require.NoError(t, err)
	return data
}

func applyIDReq(cluster, name string, id int64) wire.ApplyBrokerIDRequest {
	return wire.ApplyBrokerIDRequest{ClusterName: cluster, BrokerName: name, AppliedBrokerID: id,
		RegisterCheckCode: "10.0.0.1:10911;1700000000000"}
}

// FuzzNamesStoredAsSent: whatever 1013 carries, a request the builder
// accepts is applied through the log's encoding by Apply, and the set is
// stored under exactly the bytes sent, with names that pass the rules; a
// refused one stores nothing; the accounted size stays exact.
func FuzzNamesStoredAsSent(f *testing.F) {
	for _, seed := range [][3]string{{"c", "b", "a:1;1"}, {"", "b", "a:1;1"}, {"c", "b\xff", "a:1;1"},
		{"c", "b\u202e", "a:1;1"}, {"DefaultCluster", "broker_a.1", "10.0.0.1:10911;1700000000000"},
		{"c", "b", "fe80::1:10911;1"}, {"c", " b", "a:1;x"}, {"集群", "b\uFFFD", "[::1]:1;1"}} {
		f.Add(seed[0], seed[1], seed[2], int64(1))
	}
	f.Fuzz(func(t *testing.T, cluster, name, code string, id int64) {
		tf := newTestFSM(t)
		var evs []event
		var err error
		tf.fsm.read(func(s *state) {
			_, evs, err = s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: cluster, BrokerName: name,
				AppliedBrokerID: id, RegisterCheckCode: code})
		})
		if err != nil {
			require.Empty(t, evs)
			require.Empty(t, tf.state().BrokerNames())
			return
		}
		require.NoError(t, tf.apply(evs...).Err)
		r, ok := tf.state().Replicas(name)
		require.True(t, ok, "set %q not stored under the name sent", name)
		require.Equal(t, cluster, r.ClusterName)
		require.Equal(t, code, r.Brokers[id].RegisterCheckCode)
		require.Empty(t, nameRule(name, hardLimits.NameLength)+nameRule(cluster, hardLimits.NameLength))
		requireSizeExact(t, tf)
	})
}

// TestRestoredStateIsSizedLikeTheOriginal: a state restored from a
// snapshot is counted once, to the size Apply kept on the original.
func TestRestoredStateIsSizedLikeTheOriginal(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "DefaultCluster", "broker-a", 3)
	registerSet(f, "DefaultCluster", "broker-b", 2)
	f.apply(cleanBrokerDataEvent{BrokerName: "broker-b", Fence: &fence{MasterBrokerID: -1}}) // a tombstone
	requireSizeExact(t, f)
	restored := NewFSM(testLogger(t))
	require.NoError(t, restored.Restore(io.NopCloser(bytes.NewReader(snapshotBytes(t, f.fsm)))))
	var want, got int64
	f.fsm.read(func(s *state) { want = s.size })
	restored.read(func(s *state) { got = s.size })
	require.Positive(t, want)
	require.Equal(t, want, got)
}
