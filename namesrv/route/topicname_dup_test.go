package route

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// keyedBody builds a body whose keys (in body order) carry the given
// topic names and perms.
func keyedBody(counter int64, keys, names []string, perms []int32) *wire.RegisterBody {
	b := &wire.RegisterBody{DataVersion: wire.DataVersion{Counter: counter, Timestamp: 1}, TopicConfigs: map[string]wire.TopicConfig{}}
	for i, k := range keys {
		b.Keys = append(b.Keys, k)
		b.TopicConfigs[k] = wire.TopicConfig{TopicName: names[i], ReadQueueNums: 8, WriteQueueNums: 8, Perm: perms[i], Pos: int32(i)}
	}
	return b
}

// TestDuplicateTopicNameTakesJavaWalkOrder: two keys of topicConfigTable
// carry one topicName. Java's decoder puts them into a ConcurrentHashMap
// and registerBroker walks it: keys "a" and "b" are in buckets 1 and 2,
// so "a" comes first whatever the body order. A first registration (or a
// new DataVersion) writes every key, so the last one, "b", wins; with an
// unchanged DataVersion only a topic without the group's QueueData is
// written, so the first one, "a", wins. Every run gives the same answer.
func TestDuplicateTopicNameTakesJavaWalkOrder(t *testing.T) {
	for run := range 100 {
		h := newHarness(t, false)
		mustRegister(t, h, reg("c1", "b1", "A", 0, keyedBody(1, []string{"b", "a", "x"}, []string{"T", "T", "X"},
			[]int32{wire.PermRead | wire.PermWrite, wire.PermRead, wire.PermRead})))
		require.Equal(t, wire.PermRead|wire.PermWrite, queueOf(t, h, "T", "b1").Perm, "run %d: new version, last key wins", run)

		mustRegister(t, h, reg("c1", "b1", "A", 0, keyedBody(1, []string{"b", "a", "x", "y", "z"},
			[]string{"U", "U", "X", "Y", "Y"}, []int32{wire.PermRead | wire.PermWrite, wire.PermRead, wire.PermRead, wire.PermWrite, wire.PermRead})))
		require.Equal(t, wire.PermRead, queueOf(t, h, "U", "b1").Perm, "run %d: same version, first key wins", run)
		require.Equal(t, wire.PermWrite, queueOf(t, h, "Y", "b1").Perm, "run %d: same version, first key wins", run)
	}
}

// collidingTopics returns two topic names in one bucket of Java's
// topicQueueTable.
func collidingTopics(t *testing.T) (string, string) {
	bucket := func(s string) uint32 { return javahash.Spread(javahash.StringHash(s)) & 2047 }
	first := "U0"
	for i := 1; i < 1<<20; i++ {
		if s := "U" + strconv.Itoa(i); bucket(s) == bucket(first) {
			return first, s
		}
	}
	t.Fatal("no colliding topic names")
	return "", ""
}

// TestDuplicateTopicNameRowOrder: the rows a registration adds join
// topicQueueTable in the order of Java's walk of the body's keys (here
// a, b, c), the row of a topic named by two keys at its first key. Two
// topics in one bucket of topicQueueTable are listed (206) in that
// order, every run.
func TestDuplicateTopicNameRowOrder(t *testing.T) {
	u, v := collidingTopics(t)
	rw := wire.PermRead | wire.PermWrite
	for run := range 50 {
		for _, names := range [][]string{{u, v, u}, {v, u, v}} {
			h := newHarness(t, false)
			mustRegister(t, h, reg("c1", "b1", "A", 0, keyedBody(1, []string{"c", "b", "a"}, []string{names[2], names[1], names[0]},
				[]int32{rw, rw, rw})))
			require.Equal(t, []string{names[0], names[1]}, h.AllTopics().TopicList, "run %d", run)
		}
	}
}

// TestDuplicateTopicNameOwnKeyTakesJavaWalkOrder: one of the keys naming
// a topic is the topic's own name. Whatever the map order, a first
// registration leaves the QueueData of the key Java walks last, and adds
// the rows in the order of the first key naming each (two topics in one
// bucket of topicQueueTable, listed by 206 in that order).
func TestDuplicateTopicNameOwnKeyTakesJavaWalkOrder(t *testing.T) {
	u, v := collidingTopics(t)
	bucket := func(k string) uint32 { return javahash.Spread(javahash.StringHash(k)) & (tcTableBuckets - 1) }
	rw := wire.PermRead | wire.PermWrite
	for run := range 50 {
		// Java walks "a" and "p" before u, "m" and "o" after it.
		for _, keys := range [][2]string{{"a", "m"}, {"o", "p"}} {
			h := newHarness(t, false)
			mustRegister(t, h, reg("c1", "b1", "A", 0, keyedBody(1, []string{u, keys[0], keys[1]}, []string{u, v, u},
				[]int32{rw, rw, wire.PermRead})))
			want := []string{u, v}
			if bucket(keys[0]) < bucket(u) {
				want = []string{v, u}
			}
			require.Equal(t, want, h.AllTopics().TopicList, "run %d, keys %v: rows in Java's walk order", run, keys)
			last := rw
			if bucket(keys[1]) > bucket(u) {
				last = wire.PermRead
			}
			require.Equal(t, last, queueOf(t, h, u, "b1").Perm, "run %d, keys %v: the key walked last wins", run, keys)
		}
	}
}

// answers is everything the tables answer for the model's universe.
type answers struct {
	Routes                                []*wire.TopicRouteData
	Acting                                []*wire.TopicRouteData
	All, System, Unit, UnitSub, UnitSubUn wire.TopicList
	ByCluster                             []wire.TopicList
	Cluster                               wire.ClusterInfo
	Members                               []wire.BrokerMemberGroup
	Notes                                 []wire.MinBrokerIDChange
}

// answersOf collects the answers of every topic, cluster and group name
// of the model's universe.
func answersOf(h *harness) answers {
	var a answers
	var topics []string
	for n := range 14 {
		topics = append(topics, "t"+strconv.Itoa(n))
	}
	topics = append(topics, syncBrokerMemberPrefix+"x")
	for b := range modelBrokers {
		topics = append(topics, syncBrokerMemberPrefix+"b"+strconv.Itoa(b))
	}
	for _, tp := range topics {
		var r, act *wire.TopicRouteData
		if s := h.Lookup(tp); s != nil {
			r, act = s.Route, s.ActingMaster
		}
		a.Routes, a.Acting = append(a.Routes, r), append(a.Acting, act)
	}
	a.All, a.System, a.Unit, a.UnitSub, a.UnitSubUn = h.AllTopics(), h.SystemTopics(), h.UnitTopics(), h.HasUnitSubTopics(),
		h.HasUnitSubUnUnitTopics()
	for _, c := range []string{"c1", "c2"} {
		a.ByCluster = append(a.ByCluster, h.TopicsByCluster(c))
	}
	a.Cluster = h.ClusterInfo()
	for b := range modelBrokers {
		a.Members = append(a.Members, h.BrokerMemberGroup("c1", "b"+strconv.Itoa(b)))
	}
	a.Notes = h.takeNotes()
	return a
}

// TestAnswersIndependentOfMapOrder plays one random sequence of mutations
// of every kind (bodies with two keys naming one topic included) on two
// Managers and compares every answer after every step: Go randomizes each
// map walk, so an answer that depended on the order of one would differ.
// Replay with RMQ_SEED.
func TestAnswersIndependentOfMapOrder(t *testing.T) {
	seed := attackSeed(t)
	runs := 8
	if testing.Short() {
		runs = 2
	}
	for run := range runs {
		s := seed + uint64(run)
		var ws [2]*modelWorld
		for i := range ws {
			h := newHarness(t, false)
			h.Manager.log.SetLevel(5)
			ws[i] = &modelWorld{t: t, h: h, rng: rand.New(rand.NewPCG(s, 25)), chans: map[string]*fakeChan{}, nulls: true, dups: true}
		}
		for op := range 300 {
			d0, d1 := ws[0].step(), ws[1].step()
			require.Equal(t, d0, d1, "seed %d op %d: the worlds drew apart", s, op)
			ws[0].ops = append(ws[0].ops, d0)
			require.Equal(t, answersOf(ws[0].h), answersOf(ws[1].h), "seed %d (RMQ_SEED=%d, run %d) op %d (%s), after %v",
				s, seed, run, op, d0, ws[0].ops[max(0, len(ws[0].ops)-4):])
		}
	}
}
