package metrics

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

func TestRemotingLabelsAreBounded(t *testing.T) {
	reg := NewRegistry()
	r := NewRemoting(reg, "p")
	r.RequestDone(remoting.GetRouteinfoByTopic, remoting.Success, time.Millisecond)
	r.RequestDone(remoting.GetRouteinfoByTopic, remoting.TopicNotExist, time.Millisecond)
	r.RequestDone(remoting.BrokerHeartbeat, -1, time.Microsecond)
	for code := int32(5000); code < 5100; code++ {
		r.RequestDone(code, code, time.Second)
	}
	r.FrameRejected("frame_too_large")
	r.FrameRejected("something new")
	r.ConnOpened()
	r.ConnOpened()
	r.ConnClosed()

	fs := parse(t, reg)
	require.Equal(t, 1.0, fs.Sum("p_requests_total", "code", "105", "response_code", "0"))
	require.Equal(t, 1.0, fs.Sum("p_requests_total", "code", "105", "response_code", "17"))
	require.Equal(t, 1.0, fs.Sum("p_requests_total", "code", "904", "response_code", LabelNone))
	require.Equal(t, 100.0, fs.Sum("p_requests_total", "code", LabelOther, "response_code", LabelOther))
	require.Len(t, fs["p_requests_total"].Samples, 4)
	require.Equal(t, 103.0, fs.Sum("p_request_duration_seconds_count"))
	require.Equal(t, 1.0, fs.Sum("p_frames_rejected_total", "reason", LabelOther))
	require.Equal(t, 1.0, fs.Sum("p_connections"))
	require.Equal(t, 2.0, fs.Sum("p_connections_opened_total"))
}

func TestNamesrvFamilies(t *testing.T) {
	reg := NewRegistry()
	n := NewNamesrv(reg, NamesrvSource{
		Routes: func() RouteStats {
			return RouteStats{Topics: 7, Brokers: 2, Clusters: 1, LiveBrokers: 3,
				UnregisterQueueDepth: 4, UnregisterDrops: 5, Registrations: 6, Expiries: 8, Unregistrations: 9}
		},
		KV:    func() (int, int) { return 2, 11 },
		Ready: func() error { return errors.New("no") },
	})
	n.KVWrite(KVPut, nil)
	n.KVWrite(KVDelete, errors.New("disk"))
	n.KVWrite("weird", nil)
	fs := parse(t, reg)
	for name, want := range map[string]float64{
		"rocketmq_namesrv_topics": 7, "rocketmq_namesrv_brokers": 2, "rocketmq_namesrv_clusters": 1,
		"rocketmq_namesrv_live_brokers": 3, "rocketmq_namesrv_unregister_queue_depth": 4,
		"rocketmq_namesrv_unregister_drops_total": 5, "rocketmq_namesrv_broker_registrations_total": 6,
		"rocketmq_namesrv_broker_expiries_total": 8, "rocketmq_namesrv_broker_unregistrations_total": 9,
		"rocketmq_namesrv_kv_keys": 11, "rocketmq_namesrv_ready": 0,
	} {
		require.Equal(t, want, fs.Sum(name), name)
	}
	require.Equal(t, 1.0, fs.Sum("rocketmq_namesrv_kv_writes_total", "op", "put", "result", "ok"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_namesrv_kv_writes_total", "op", "delete", "result", "error"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_namesrv_kv_writes_total", "op", LabelOther))
}

type fakeSource struct {
	stats  map[string]string
	epochs map[string]int32
}

func (f fakeSource) RaftStats() map[string]string   { return f.stats }
func (f fakeSource) MasterEpochs() map[string]int32 { return f.epochs }

type fakePeerSource struct {
	fakeSource
	peers []RaftPeerErrorCount
}

func (f fakePeerSource) RaftPeerErrors() []RaftPeerErrorCount { return f.peers }

// TestRaftPeerErrorFamily: a source that counts its failed Raft RPCs
// exports one counter per peer and kind, an unknown kind folded into
// other (summed, not duplicated).
func TestRaftPeerErrorFamily(t *testing.T) {
	reg := NewRegistry()
	c := NewController(reg)
	c.SetSource(fakePeerSource{fakeSource: fakeSource{stats: map[string]string{"state": "Leader"}},
		peers: []RaftPeerErrorCount{{"n1", "heartbeat", 597}, {"n1", "append_entries", 0},
			{"other", "pre_vote", 2}, {"n1", "x", 1}, {"n1", "y", 2}}})
	fs := parse(t, reg)
	const name = "rocketmq_controller_raft_transport_errors_total"
	require.Equal(t, 597.0, fs.Sum(name, "peer", "n1", "kind", "heartbeat"))
	require.True(t, fs.Has(name))
	require.Equal(t, 0.0, fs.Sum(name, "peer", "n1", "kind", "append_entries"))
	require.Equal(t, 2.0, fs.Sum(name, "peer", "other", "kind", "pre_vote"))
	require.Equal(t, 3.0, fs.Sum(name, "peer", "n1", "kind", LabelOther))
}

func TestControllerFamilies(t *testing.T) {
	reg := NewRegistry()
	c := NewController(reg)
	fs := parse(t, reg)
	require.False(t, fs.Has("rocketmq_controller_raft_term"), "no source yet")

	c.SetSource(fakeSource{
		stats: map[string]string{"state": "Leader", "term": "3", "commit_index": "42",
			"applied_index": "41", "last_contact": "0", "leader_id": "n1", "num_peers": "2",
			"state_bytes": "4096", "legacy_entries_applied": "3"},
		epochs: map[string]int32{"broker-b": 2, "broker-a": 5},
	})
	c.ElectionDone("broker", 0, 3*time.Millisecond)
	c.ElectionDone("inactive", remoting.ControllerMasterNotAvailable, time.Millisecond)
	c.ElectionDone("mystery", 77, time.Millisecond)
	c.LeadershipChanged(true)
	c.Heartbeat()
	c.Heartbeat()
	c.NotifySent(nil)
	c.NotifySent(errors.New("x"))
	c.BrokersEvicted(2)

	fs = parse(t, reg)
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_raft_state", "state", "Leader"))
	require.Equal(t, 0.0, fs.Sum("rocketmq_controller_raft_state", "state", "Follower"))
	require.Equal(t, 3.0, fs.Sum("rocketmq_controller_raft_term"))
	require.Equal(t, 42.0, fs.Sum("rocketmq_controller_raft_commit_index"))
	require.Equal(t, 41.0, fs.Sum("rocketmq_controller_raft_applied_index"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_raft_leader", "leader_id", "n1"))
	require.Equal(t, 5.0, fs.Sum("rocketmq_controller_master_epoch", "broker_set", "broker-a"))
	require.Equal(t, 2.0, fs.Sum("rocketmq_controller_broker_sets"))
	require.Equal(t, 4096.0, fs.Sum("rocketmq_controller_state_bytes"))
	require.Equal(t, 3.0, fs.Sum("rocketmq_controller_legacy_entries_applied_total"))
	require.Equal(t, "counter", fs["rocketmq_controller_legacy_entries_applied_total"].Type)
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_elections_total", "trigger", "broker", "code", "0"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_elections_total", "trigger", "inactive", "code", "2004"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_elections_total", "trigger", LabelOther, "code", LabelOther))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_leader_ready"))
	require.Equal(t, 2.0, fs.Sum("rocketmq_controller_heartbeats_total"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_role_change_notifications_total", "result", "error"))
	require.Equal(t, 2.0, fs.Sum("rocketmq_controller_brokers_evicted_total"))
}

func BenchmarkRequestDone(b *testing.B) {
	r := NewRemoting(NewRegistry(), "p")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.RequestDone(remoting.GetRouteinfoByTopic, remoting.Success, time.Millisecond)
		}
	})
}

// FamilyNames lists every family registered, also a vector no label set
// was used on and the source families before SetSource: what /metrics
// may serve, which a scrape of a fresh node does not show.
func TestFamilyNamesListsFamiliesWithoutSeries(t *testing.T) {
	reg := NewRegistry()
	NewController(reg)
	require.False(t, parse(t, reg).Has("rocketmq_controller_elections_total"))
	names := reg.FamilyNames()
	for _, f := range []string{"rocketmq_controller_elections_total", "rocketmq_controller_raft_term",
		"rocketmq_controller_legacy_entries_applied_total", "rocketmq_controller_requests_total"} {
		require.Contains(t, names, f)
	}
	require.IsIncreasing(t, names)
}
