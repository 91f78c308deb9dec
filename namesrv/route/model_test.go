package route

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// modelRoute builds a topic's route from the source tables the way
// pickupTopicRouteData does, independently of buildSnapshot and of any
// sharing: a private copy of every BrokerData of the topic's groups (in
// queue order), the filter servers of each address by (cluster, addr),
// the topic's static mappings, and the acting-master rewrite. Nil when no
// group has BrokerData.
func modelRoute(m *Manager, e *topicEntry) (plain, acting *wire.TopicRouteData) {
	r := &wire.TopicRouteData{QueueDatas: slices.Clone(e.queues), FilterServerTable: map[string][]string{},
		TopicQueueMappingByBroker: m.mappings[e.name]}
	// Java's HashSet copy of the queue map's keys: buckets of its own size.
	hs := javahash.TableSizeFor(max(int(float32(len(e.queues))/0.75)+1, 16))
	names := make([]string, 0, len(e.queues))
	for _, q := range e.queues {
		names = append(names, q.BrokerName)
	}
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(nameBucket(a, hs), nameBucket(b, hs)) })
	for _, name := range names {
		if b := m.brokers[name]; b != nil {
			r.BrokerDatas = append(r.BrokerDatas, b.copyData())
		}
	}
	if len(r.BrokerDatas) == 0 {
		return nil, nil
	}
	for i := range r.BrokerDatas {
		bd := &r.BrokerDatas[i]
		if bd.BrokerAddrs == nil {
			bd.BrokerAddrs = map[int64]string{}
		}
		for _, a := range bd.BrokerAddrs {
			if len(m.filters) > 0 { // Java puts every lookup, null ones too
				r.FilterServerTable[a] = m.filters[addrKey{bd.Cluster, a}]
			}
		}
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(r.FilterServerTable)), func(l []string) bool { return l != nil }) {
		r.FilterServerTable = map[string][]string{}
	}
	return r, modelActing(e.name, r)
}

// modelActing is step 6 of pickupTopicRouteData on a copy, nil when it
// changes nothing.
func modelActing(topic string, r *wire.TopicRouteData) *wire.TopicRouteData {
	if strings.HasPrefix(topic, syncBrokerMemberPrefix) {
		return nil
	}
	out := *r
	out.BrokerDatas = nil
	changed := false
	for _, bd := range r.BrokerDatas {
		_, master := bd.BrokerAddrs[wire.MasterID]
		if len(bd.BrokerAddrs) > 0 && !master && bd.EnableActingMaster {
			for _, q := range r.QueueDatas {
				if q.BrokerName != bd.BrokerName {
					continue
				}
				if q.Perm&wire.PermWrite == 0 {
					ids := slices.Sorted(maps.Keys(bd.BrokerAddrs))
					addrs := maps.Clone(bd.BrokerAddrs)
					delete(addrs, ids[0])
					addrs[wire.MasterID] = bd.BrokerAddrs[ids[0]]
					order := slices.DeleteFunc(wire.CopyOrder(bd.AddrOrder), func(id int64) bool { return id == ids[0] })
					bd.BrokerAddrs, bd.AddrOrder, changed = addrs, append(order, wire.MasterID), true
				}
				break
			}
		}
		out.BrokerDatas = append(out.BrokerDatas, bd)
	}
	if !changed {
		return nil
	}
	return &out
}

// checkModel compares everything published with a from-scratch build:
// each topic's snapshot with modelRoute, the broker indexes and topic
// sets with a recount from the rows, the intern table with the published
// rows (each interned snapshot keyed by its holders' current groups, no
// two interned snapshots of one route), the topic count and lists, and
// the body cache's count with a recount.
func checkModel(t *testing.T, m *Manager, c *BodyCache, msg string) {
	t.Helper()
	m.mu.RLock()
	defer m.mu.RUnlock()
	rows := m.pub.rows()
	byBroker := map[string]map[*topicEntry]bool{}
	var names []string
	for _, e := range rows {
		require.False(t, e.removed, "%s: removed row %s still published", msg, e.name)
		names = append(names, e.name)
		n := e.queueBuckets()
		require.True(t, slices.IsSortedFunc(e.queues, func(a, b wire.QueueData) int {
			return cmp.Compare(nameBucket(a.BrokerName, n), nameBucket(b.BrokerName, n))
		}), "%s: %s queues not in HashMap bucket order", msg, e.name)
		require.LessOrEqual(t, len(e.queues), n*3/4, "%s: %s queue map not grown", msg, e.name)
		for _, q := range e.queues {
			if byBroker[q.BrokerName] == nil {
				byBroker[q.BrokerName] = map[*topicEntry]bool{}
			}
			byBroker[q.BrokerName][e] = true
		}
		checkRowSnapshot(t, m, e, msg)
	}
	require.Len(t, m.byBroker, len(byBroker), "%s: broker indexes", msg)
	for name, set := range m.byBroker {
		checkTopicSet(t, set, byBroker[name], msg+" index "+name)
	}
	require.Equal(t, len(rows), m.pub.live, "%s: live rows", msg)
	require.Equal(t, len(rows), m.Stats().Topics, "%s: topic count", msg)
	require.ElementsMatch(t, names, rowNames(m.allRows()), "%s: topic list", msg)
	checkInternKeys(t, m, rows, msg)
	if c != nil {
		require.Equal(t, recountBodies(m, c), c.Used(), "%s: body bytes", msg)
	}
}

// checkRowSnapshot compares one row's published snapshot with modelRoute.
func checkRowSnapshot(t *testing.T, m *Manager, e *topicEntry, msg string) {
	t.Helper()
	s := e.snap.Load()
	plain, acting := modelRoute(m, e)
	if plain == nil {
		require.Nil(t, s, "%s: %s has no BrokerData but a snapshot", msg, e.name)
		return
	}
	require.NotNil(t, s, "%s: %s has no snapshot", msg, e.name)
	require.Equal(t, *plain, *s.Route, "%s: route of %s", msg, e.name)
	require.Equal(t, acting, s.ActingMaster, "%s: acting-master view of %s", msg, e.name)
	if len(e.queues) > 0 {
		require.Same(t, &e.queues[0], &s.Route.QueueDatas[0], "%s: %s shares its snapshot's queue slice", msg, e.name)
	}
	require.Equal(t, m.internable(e), s.intern.on, "%s: %s interned iff internable", msg, e.name)
}

// checkTopicSet compares a topicSet with the rows that hold its group.
func checkTopicSet(t *testing.T, s *topicSet, want map[*topicEntry]bool, msg string) {
	t.Helper()
	live, used := 0, 0
	for _, e := range s.slots {
		switch {
		case e == setTomb:
			used++
		case e != nil:
			live, used = live+1, used+1
			require.True(t, want[e], "%s: %s indexed without a queue of the group", msg, e.name)
		}
	}
	require.Equal(t, len(want), live, "%s: members", msg)
	require.Equal(t, live, s.live, "%s: live", msg)
	require.Equal(t, used, s.used, "%s: used", msg)
	require.LessOrEqual(t, s.used*4, len(s.slots)*3, "%s: load", msg)
	for e := range want {
		require.False(t, s.add(e), "%s: %s is a member", msg, e.name)
	}
}

// checkInternKeys checks the intern table against the rows: checkInterns,
// and every interned snapshot is the route its holders have now (their
// groups' current BrokerData) with no second interned snapshot of it.
func checkInternKeys(t *testing.T, m *Manager, rows []*topicEntry, msg string) {
	t.Helper()
	for _, e := range rows {
		s := e.snap.Load()
		if s == nil || !s.intern.on {
			continue
		}
		g := m.groupsOf(e.queues)
		require.Equal(t, g, s.intern.groups, "%s: %s is interned under stale groups", msg, e.name)
		require.Equal(t, strings.HasPrefix(e.name, syncBrokerMemberPrefix), s.intern.sync, "%s: sync flag of %s", msg, e.name)
	}
	all := interned(m)
	for i, a := range all {
		for _, b := range all[i+1:] {
			if a.intern.groups == b.intern.groups && a.intern.sync == b.intern.sync &&
				slices.Equal(a.Route.QueueDatas, b.Route.QueueDatas) {
				t.Fatalf("%s: two interned snapshots of route %v", msg, a.Route.QueueDatas)
			}
		}
	}
	checkInterns(t, m, msg)
}

// TestRoutesMatchModel applies random mutations of every kind and,
// after each, checks every published snapshot against a from-scratch
// build and the intern table, indexes, counts and body cache against a
// recount (checkModel). Lookups between mutations fill the body cache.
// Replay with RMQ_SEED.
func TestRoutesMatchModel(t *testing.T) {
	seed := attackSeed(t)
	rng := rand.New(rand.NewPCG(seed, 21))
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	w := &modelWorld{t: t, h: h, rng: rng, chans: map[string]*fakeChan{}, nulls: true}
	c := NewBodyCache(0)
	maxTopics, maxShared, kinds, shapes := 0, 0, map[string]int{}, map[string]int{}
	for op := range 3000 {
		desc := w.step()
		kinds[strings.Fields(desc)[0]]++
		w.ops = append(w.ops, desc)
		for range rng.IntN(6) {
			if s := h.Lookup(w.topic()); s != nil {
				require.NoError(t, checkBody(c, "", s, BodySlot(rng.IntN(int(BodySlots)))))
			}
		}
		checkModel(t, h.Manager, c, fmt.Sprintf("seed %d op %d (%s), after %v", seed, op, desc,
			w.ops[max(0, len(w.ops)-4):]))
		maxTopics = max(maxTopics, h.Stats().Topics)
		for _, s := range interned(h.Manager) {
			maxShared = max(maxShared, int(s.intern.refs))
		}
		countShapes(h.Manager, shapes)
	}
	t.Logf("at most %d topics, at most %d on one snapshot; ops %v; rows seen after a step %v",
		maxTopics, maxShared, kinds, shapes)
	require.Greater(t, maxShared, 2, "the run shared snapshots")
	for _, k := range []string{"wide", "mapped", "sync shared", "acting"} {
		require.Positive(t, shapes[k], "the run had %s rows", k)
	}
}

// TestRoutesMatchModelUnderConcurrentLookups runs the mutations of TestRoutesMatchModel
// against concurrent lock-free lookups that serve bodies from one cache
// and check each snapshot on its own: the body served is the encoding of
// the snapshot's route, and its acting-master view is the rewrite of its
// route (none for a sync-member topic). Under -race, any write to
// published data (a shared queue slice, a BrokerData, a filter map)
// while lookups read it is reported. The model is checked at the end.
// Replay with RMQ_SEED.
func TestRoutesMatchModelUnderConcurrentLookups(t *testing.T) {
	seed := attackSeed(t)
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	w := &modelWorld{t: t, h: h, rng: rand.New(rand.NewPCG(seed, 22)), chans: map[string]*fakeChan{}, nulls: true}
	c := NewBodyCache(0)
	var stop atomic.Bool
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	var looked atomic.Int64
	for r := range 2 {
		wg.Add(1)
		go func(rng *rand.Rand) {
			defer wg.Done()
			rw := &modelWorld{rng: rng}
			for !stop.Load() {
				topic := rw.topic()
				s := h.Lookup(topic)
				if s == nil {
					continue
				}
				looked.Add(1)
				err := checkBody(c, topic, s, BodySlot(rng.IntN(int(BodySlots))))
				if err == nil && !strings.HasPrefix(topic, syncBrokerMemberPrefix) {
					if want := modelActing(topic, s.Route); !reflect.DeepEqual(want, s.ActingMaster) {
						err = fmt.Errorf("%s: acting-master view %v of route %v", topic, s.ActingMaster, s.Route)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(rand.New(rand.NewPCG(seed, uint64(100+r))))
	}
	for range 6000 {
		w.step()
		if len(errs) > 0 {
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d lookups served", looked.Load())
	checkModel(t, h.Manager, c, "after the run")
}

// countShapes counts the kinds of published rows: on more than keyQueues
// groups (own snapshot), with static mappings, sync-member topics on a
// shared snapshot, with an acting-master view, without a snapshot.
func countShapes(m *Manager, shapes map[string]int) {
	for _, e := range m.pub.rows() {
		s := e.snap.Load()
		switch {
		case s == nil:
			shapes["none"]++
			continue
		case len(e.queues) > keyQueues:
			shapes["wide"]++
		case m.mappings[e.name] != nil:
			shapes["mapped"]++
		case strings.HasPrefix(e.name, syncBrokerMemberPrefix) && s.intern.refs > 1:
			shapes["sync shared"]++
		}
		if s.ActingMaster != nil {
			shapes["acting"]++
		}
	}
}

// TestNothingPublishedBeforeCommit runs the model's mutations and,
// in each, compares what lookups answer between the mutation's changes
// and its commit with what they answered before it: the coordinator
// changes the source tables in place, so anything a lookup could see
// before the commit (a row withdrawn early, a snapshot stored early, a
// queue slice written in place) would be a state that is neither before
// nor after the mutation. Every snapshot answered must also be unchanged
// (its queue data as it was). Replay with RMQ_SEED.
func TestNothingPublishedBeforeCommit(t *testing.T) {
	seed := attackSeed(t)
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	w := &modelWorld{t: t, h: h, rng: rand.New(rand.NewPCG(seed, 23)), chans: map[string]*fakeChan{}}
	topics := traceTopics()
	type seen struct {
		s      *TopicSnapshot
		queues []wire.QueueData
	}
	var before map[string]seen
	look := func() map[string]seen {
		out := map[string]seen{}
		for _, tp := range topics {
			if s := h.Lookup(tp); s != nil {
				out[tp] = seen{s, slices.Clone(s.Route.QueueDatas)}
			}
		}
		return out
	}
	mutations := 0
	h.mut.beforeFn = func() { before = look() }
	h.mut.beforeCommit = func() {
		mutations++
		during := look()
		for _, tp := range topics {
			if before[tp].s != during[tp].s {
				t.Fatalf("seed %d: %s answered %v before the commit, %v before the mutation", seed, tp,
					during[tp].queues, before[tp].queues)
			}
			require.Equal(t, before[tp].queues, during[tp].queues, "seed %d: %s's snapshot changed", seed, tp)
		}
	}
	for range 2000 {
		w.step()
	}
	t.Logf("%d mutations checked", mutations)
}
