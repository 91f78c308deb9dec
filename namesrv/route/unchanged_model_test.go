package route

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// twin drives two Managers with the same operations: fast tries
// RegisterIfUnchanged before RegisterBroker (as the processor does), full
// always takes the full path. Whatever the fast path skips must leave no
// visible difference.
type twin struct {
	t          *testing.T
	rng        *rand.Rand
	fast, full *harness
	chans      []*fakeChan
	bodies     []*wire.RegisterBody
	last       map[string]wire.RegisterRequest // last request per address
	hits       int
	log        []string
}

var twinTopics = topicNames("tw", 6)

func newTwin(t *testing.T, seed uint64) *twin {
	tw := &twin{t: t, rng: rand.New(rand.NewPCG(seed, 11)), last: map[string]wire.RegisterRequest{},
		fast: newHarness(t, false), full: newHarness(t, false)}
	tw.fast.Manager.log.SetLevel(5)
	tw.full.Manager.log.SetLevel(5)
	for i := range 3 {
		tw.chans = append(tw.chans, newChan(fmt.Sprint("ch", i)))
	}
	for i := range 8 {
		tw.bodies = append(tw.bodies, tw.randomBody(i))
	}
	return tw
}

// randomBody draws a body: a DataVersion shared with other bodies (so
// equal versions can carry different tables), sometimes without timestamp
// or null, a topic subset with varied queues and perms, sometimes a null
// table or wrapper, filter servers absent, empty or set, and sometimes a
// static-topic mapping.
func (tw *twin) randomBody(i int) *wire.RegisterBody {
	r := tw.rng
	b := body(int64(1 + r.IntN(2)))
	for _, tp := range twinTopics {
		if r.IntN(2) == 0 {
			b.TopicConfigs[tp] = wire.TopicConfig{TopicName: tp, ReadQueueNums: int32(4 + 4*r.IntN(2)),
				WriteQueueNums: int32(4 + 4*r.IntN(2)), Perm: []int32{6, 4, 2}[r.IntN(3)]}
		}
	}
	b.FilterServerList = [][]string{nil, {}, {"f1"}}[i%3]
	nullVariant(b, r.IntN(10))
	if r.IntN(3) == 0 && !b.TopicTableNull {
		tp := twinTopics[r.IntN(len(twinTopics))]
		b.MappingInfos = map[string]*wire.TopicQueueMappingInfo{tp: {Topic: tp, Bname: fmt.Sprint("b", r.IntN(2)),
			TotalQueues: 4, Epoch: int64(i)}}
	}
	return b
}

// newRequest picks a registration; its digest stands for the body bytes
// plus what registerDigest folds in (broker name and id).
func (tw *twin) newRequest() wire.RegisterRequest {
	r := tw.rng
	addr := fmt.Sprint("a", r.IntN(3))
	if old, ok := tw.last[addr]; ok && r.IntN(3) > 0 {
		old.Channel = tw.chans[r.IntN(len(tw.chans))]
		old.HAServerAddr = fmt.Sprint(addr, "-ha", r.IntN(2))
		old.HeartbeatTimeoutMillis = int64(r.IntN(2)) * 5000
		return old // the same body again
	}
	bi, name, id := r.IntN(len(tw.bodies)), fmt.Sprint("b", r.IntN(2)), int64(r.IntN(3))
	req := reg([]string{"c1", "c1", "c2"}[r.IntN(3)], name, addr, id, tw.bodies[bi])
	req.EnableActingMaster = []*bool{nil, boolp(false), boolp(true)}[r.IntN(3)]
	req.ZoneName = []string{"", "z"}[r.IntN(2)]
	req.Channel = tw.chans[r.IntN(len(tw.chans))]
	req.BodyDigest = wire.BodyDigest{byte(bi + 1), name[1], byte(id)}
	return req
}

func (tw *twin) register() {
	req := tw.newRequest()
	tw.last[req.BrokerAddr] = req
	eam := "nil"
	if req.EnableActingMaster != nil {
		eam = fmt.Sprint(*req.EnableActingMaster)
	}
	tw.logf("register %s/%s %s id=%d dig=%v eam=%s zone=%q", req.ClusterName, req.BrokerName, req.BrokerAddr,
		req.BrokerID, req.BodyDigest[:3], eam, req.ZoneName)
	want, wantErr := tw.full.RegisterBroker(req)
	skim := req
	skim.Body = nil
	got, ok := tw.fast.RegisterIfUnchanged(skim)
	var gotErr error
	if ok {
		tw.hits++
		tw.logf("  fast path")
	} else {
		got, gotErr = tw.fast.RegisterBroker(req)
	}
	require.Equal(tw.t, wantErr, gotErr, tw.trace())
	require.Equal(tw.t, want, got, tw.trace())
}

func (tw *twin) logf(format string, args ...any) {
	tw.log = append(tw.log, fmt.Sprintf(format, args...))
}

func (tw *twin) trace() string {
	return fmt.Sprint(tw.log[max(0, len(tw.log)-60):])
}

// both applies an operation to each Manager.
func (tw *twin) both(desc string, op func(h *harness)) {
	tw.logf("%s", desc)
	op(tw.fast)
	op(tw.full)
}

func (tw *twin) step() {
	r := tw.rng
	switch n := r.IntN(20); {
	case n < 11:
		tw.register()
	case n == 11:
		addr := fmt.Sprint("a", r.IntN(3))
		req := tw.last[addr]
		tw.both("unregister "+addr, func(h *harness) {
			h.Unregister(wire.UnregisterRequest{ClusterName: req.ClusterName, BrokerAddr: addr,
				BrokerName: req.BrokerName, BrokerID: req.BrokerID})
			h.WaitIdle()
		})
	case n == 12:
		topic, cluster := twinTopics[r.IntN(len(twinTopics))], []string{"", "c1", "c2"}[r.IntN(3)]
		tw.both("delete topic "+topic+" "+cluster, func(h *harness) { h.DeleteTopic(topic, cluster) })
	case n == 13:
		name := fmt.Sprint("b", r.IntN(2))
		tw.both("wipe "+name, func(h *harness) { h.WipeWritePerm(name) })
	case n == 14:
		name := fmt.Sprint("b", r.IntN(2))
		tw.both("add perm "+name, func(h *harness) { h.AddWritePerm(name) })
	case n == 15:
		ch := tw.chans[r.IntN(len(tw.chans))]
		tw.both("close "+ch.name, func(h *harness) { h.OnChannelClose(ch); h.WaitIdle() })
	case n == 16:
		d := time.Duration(r.IntN(3)) * 50 * time.Second
		tw.both(fmt.Sprint("advance ", d), func(h *harness) {
			h.clock.Advance(d)
			h.ScanExpired(h.clock.Mono())
			h.WaitIdle()
		})
	case n == 17:
		topic := twinTopics[r.IntN(len(twinTopics))]
		q := []wire.QueueData{{BrokerName: fmt.Sprint("b", r.IntN(2)), ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6}}
		tw.both("register topic "+topic, func(h *harness) { h.RegisterTopic(topic, q) })
	case n == 18:
		s := Settings{DeleteTopicWithBrokerRegistration: r.IntN(4) == 0}
		tw.both(fmt.Sprint("settings ", s), func(h *harness) { h.set(s) })
	default:
		addr := fmt.Sprint("a", r.IntN(3))
		c := tw.last[addr].ClusterName
		dv := tw.bodies[r.IntN(len(tw.bodies))].DataVersion
		tw.both("heartbeat and query data version "+addr, func(h *harness) {
			h.Heartbeat(c, addr)
			h.QueryDataVersion(c, addr, &dv)
		})
	}
	tw.compare()
}

// compare checks every visible table of the two Managers.
func (tw *twin) compare() {
	t, a, b := tw.t, tw.fast, tw.full
	require.Equal(t, b.ClusterInfo(), a.ClusterInfo(), tw.trace())
	require.Equal(t, b.AllTopics(), a.AllTopics(), tw.trace())
	for _, topic := range twinTopics {
		sa, sb := a.Lookup(topic), b.Lookup(topic)
		require.Equal(t, sb == nil, sa == nil, "topic %s %s", topic, tw.trace())
		if sa != nil {
			require.Equal(t, *sb.Route, *sa.Route, "topic %s %s", topic, tw.trace())
			require.Equal(t, sb.ActingMaster, sa.ActingMaster, "topic %s %s", topic, tw.trace())
		}
	}
	require.Equal(t, liveView(b), liveView(a), tw.trace())
	require.Equal(t, b.takeNotes(), a.takeNotes(), tw.trace())
}

// liveView lists the live entries without their body memos, and the
// addresses each open connection registered.
func liveView(h *harness) []string {
	h.live.mu.Lock()
	defer h.live.mu.Unlock()
	var out []string
	for k, e := range h.live.m {
		out = append(out, fmt.Sprintf("%v name=%s id=%d dv=%v null=%v ha=%s ch=%v gen=%d timeout=%d last=%d idx=%v filters=%v",
			k, e.name, e.id, e.dv, e.dvNull, e.ha, e.ch, e.gen, e.timeout, e.last, e.idx >= 0, h.filters[k]))
	}
	for ch, as := range h.live.connAddrs {
		out = append(out, fmt.Sprintf("conn %v registered %v", ch, slices.Sorted(maps.Keys(as))))
	}
	slices.Sort(out)
	return out
}

// TestRegisterUnchangedMatchesFullPath runs random operations
// (registrations repeating their last body with a new channel, HA address
// or timeout, unregistrations, expiry, channel close, topic deletion and
// creation, perm changes, settings) against two Managers, one answering
// identical bodies through RegisterIfUnchanged, and requires identical
// answers and tables after every step. 8 runs of 300 steps (400 with
// RMQ_TEST_LONG=1); RMQ_SEED replays, run i using seed+i.
func TestRegisterUnchangedMatchesFullPath(t *testing.T) {
	seed, runs := attackSeed(t), 8
	if os.Getenv("RMQ_TEST_LONG") == "1" {
		runs = 400
	}
	for run := range runs {
		tw := newTwin(t, seed+uint64(run))
		for range 300 {
			tw.step()
		}
		if run == 0 {
			t.Logf("run 0: %d fast-path hits in 300 steps", tw.hits)
		}
	}
}

// TestRegisterUnchangedPrimeSlaveAfterDemotion: a prime slave whose
// topics were applied, demoted by a master and re-registering its body
// while a topic of that body is deleted, then prime again after the master
// leaves. The full path (isTopicConfigChanged: the topic has no QueueData
// of the group) re-adds the deleted topic; the fast path must not answer
// instead (found by TestRegisterUnchangedMatchesFullPath, seed
// 1094137437056100200).
func TestRegisterUnchangedPrimeSlaveAfterDemotion(t *testing.T) {
	h := newHarness(t, false)
	slave := withDigest(reg("c1", "b1", "a1", 1, body(1, "t1", "t2")), digestA)
	mustRegister(t, h, slave) // prime slave: its topics are applied
	mustRegister(t, h, withDigest(reg("c1", "b1", "a0", 0, body(1, "t8", "t9")), digestB))
	h.DeleteTopic("t1", "")
	require.Nil(t, h.Lookup("t1"))

	slave.Body = nil
	_, ok := h.RegisterIfUnchanged(slave)
	require.True(t, ok, "not the prime slave while the master lives: step 10 does not apply")
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "a0", BrokerName: "b1"}))
	h.WaitIdle()

	if _, ok = h.RegisterIfUnchanged(slave); !ok {
		slave.Body = body(1, "t1", "t2")
		mustRegister(t, h, slave)
	}
	require.NotNil(t, h.Lookup("t1"), "the prime slave's registration re-adds the deleted topic, as the full path does")
}

// TestAttackBrokerChurnLeavesNoState registers 600 short-lived broker
// addresses, each re-registering its body once through the fast path, and
// removes them by unregistration, expiry and channel close: no live entry,
// memo, channel index, heap slot, group or filter may remain.
func TestAttackBrokerChurnLeavesNoState(t *testing.T) {
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	require.LessOrEqual(t, unsafe.Sizeof(bodyMemo{}), uintptr(64), "the memo a live entry keeps")
	const n = 600
	for i := range n {
		req := reg("c1", fmt.Sprint("b", i), fmt.Sprint("addr-", i), 0, body(1, "shared", fmt.Sprint("own-", i)))
		req.BodyDigest, req.Channel = wire.BodyDigest{byte(i), byte(i >> 8), 1}, newChan(fmt.Sprint(i))
		req.Body.FilterServerList = []string{"f"}
		mustRegister(t, h, req)
		req.Body = nil
		_, ok := h.RegisterIfUnchanged(req)
		require.True(t, ok)
		switch i % 3 {
		case 0:
			require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: req.BrokerAddr, BrokerName: req.BrokerName}))
		case 1:
			h.OnChannelClose(req.Channel)
		}
		h.WaitIdle()
	}
	h.clock.Advance(MaxBrokerTimeout + time.Second)
	require.Equal(t, n/3, h.ScanExpired(h.clock.Mono()))
	h.WaitIdle()
	require.Equal(t, uint64(n), h.Stats().UnchangedRegistrations)
	h.live.mu.Lock()
	defer h.live.mu.Unlock()
	require.Empty(t, h.live.m)
	require.Empty(t, h.live.byChan)
	require.Empty(t, h.live.heap)
	require.Empty(t, h.brokers)
	require.Empty(t, h.clusters)
	require.Empty(t, h.filters)
	require.Empty(t, h.pub.rows())
	require.Empty(t, h.byBroker)
}

// checkLiveInvariants verifies the live table's indexes: each entry is
// under its channel once and in the heap at its index, and nothing else
// is indexed.
func checkLiveInvariants(t *testing.T, h *harness) {
	t.Helper()
	h.live.mu.Lock()
	defer h.live.mu.Unlock()
	indexed := 0
	for ch, es := range h.live.byChan {
		for _, e := range es {
			require.Same(t, e, h.live.m[e.key], "a channel indexes a dropped entry")
			require.Equal(t, ch, e.ch)
			indexed++
		}
	}
	bound := 0
	for _, e := range h.live.m {
		if e.ch != nil {
			bound++
		}
		if e.idx >= 0 {
			require.Same(t, e, h.live.heap[e.idx].e)
		}
	}
	require.Equal(t, bound, indexed)
	for i, it := range h.live.heap {
		require.Equal(t, i, it.e.idx)
		require.Same(t, it.e, h.live.m[it.e.key], "the heap holds a dropped entry")
	}
}

// TestFastPathRacesUnregistration races identical re-registrations
// (each from one of several connections) with channel closes, explicit
// unregistrations and expiry scans, the worker applying batches fenced by
// generation. Afterwards the live table's indexes must be consistent, and
// one more identical registration per broker, fast or full, must bring
// every broker and its topics back.
func TestFastPathRacesUnregistration(t *testing.T) {
	seed := attackSeed(t)
	h := newHarness(t, true)
	h.Manager.log.SetLevel(5)
	const brokers, rounds = 6, 400
	chans := []*fakeChan{newChan("x"), newChan("y"), newChan("z")}
	reqs := make([]wire.RegisterRequest, brokers)
	for i := range reqs {
		reqs[i] = withDigest(reg("c1", fmt.Sprint("b", i), fmt.Sprint("a", i), 0, body(1, fmt.Sprint("t", i), "shared")),
			wire.BodyDigest{byte(i + 1)})
	}
	registerOnce := func(req wire.RegisterRequest) {
		skim := req
		skim.Body = nil
		if _, ok := h.RegisterIfUnchanged(skim); !ok {
			req.Body = body(1, fmt.Sprint("t", req.BrokerName[1:]), "shared")
			mustRegister(t, h, req)
		}
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func(rng *rand.Rand) {
			defer wg.Done()
			for range rounds {
				i := rng.IntN(brokers)
				switch rng.IntN(6) {
				case 0:
					h.OnChannelClose(chans[rng.IntN(len(chans))])
				case 1:
					h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: reqs[i].BrokerAddr, BrokerName: reqs[i].BrokerName})
				case 2:
					h.clock.Advance(time.Duration(rng.IntN(40)) * time.Second)
					h.ScanExpired(h.clock.Mono())
				default:
					req := reqs[i]
					req.Channel = chans[rng.IntN(len(chans))]
					registerOnce(req)
				}
			}
		}(rand.New(rand.NewPCG(seed, uint64(g))))
	}
	wg.Wait()
	h.WaitIdle()
	checkLiveInvariants(t, h)
	for _, req := range reqs {
		req.Channel = chans[0]
		registerOnce(req)
	}
	h.WaitIdle()
	checkLiveInvariants(t, h)
	require.Equal(t, brokers, h.live.size())
	for i := range brokers {
		s := h.Lookup(fmt.Sprint("t", i))
		require.NotNil(t, s, "topic of broker %d", i)
		require.Equal(t, fmt.Sprint("a", i), s.Route.BrokerDatas[0].BrokerAddrs[0])
	}
	require.Len(t, h.Lookup("shared").Route.QueueDatas, brokers)
}
