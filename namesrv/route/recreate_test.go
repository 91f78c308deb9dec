package route

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// aliasBody is a registration whose topic table keys topic under another
// key: step 10b (deleteTopicWithBrokerRegistration) deletes by key, step
// 10c puts by TopicConfig.TopicName, so one registration removes the
// topic's last queue and puts it back. It also carries topic "keep".
func aliasBody(counter int64, topic string, wq int32) *wire.RegisterBody {
	b := body(counter, "keep")
	b.Keys = append(b.Keys, "alias-of-"+topic)
	b.TopicConfigs["alias-of-"+topic] = wire.TopicConfig{TopicName: topic, ReadQueueNums: 8, WriteQueueNums: wq,
		Perm: wire.PermRead | wire.PermWrite, Pos: 1}
	return b
}

// TestRecreatedTopicNeverMissing: a registration that removes a
// topic's last queue (step 10b) and puts it back (step 10c) changes the
// topic from one route to another; a lookup during the mutation must
// answer the route before or the route after, never TOPIC_NOT_EXIST.
// Java's pickupTopicRouteData runs under the read lock, so it never sees
// the topic missing in between.
func TestRecreatedTopicNeverMissing(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t", "other")))
	h.set(Settings{DeleteTopicWithBrokerRegistration: true})
	before := h.Lookup("t")
	require.NotNil(t, before)

	req := reg("c1", "b1", "a1", 0, aliasBody(2, "t", 3))
	var during *TopicSnapshot
	h.mutate(func(tx *mutation) {
		_, err := tx.register(req, req.Body, topicsDigestOf(req.Body))
		require.NoError(t, err)
		during = h.Lookup("t") // lock-free: what a concurrent lookup sees before the commit
	})
	require.NotNil(t, during, "a lookup inside the mutation found the topic missing")
	require.Same(t, before, during, "and it answers the state before the mutation")
	after := h.Lookup("t")
	require.NotNil(t, after)
	require.Equal(t, int32(3), after.Route.QueueDatas[0].WriteQueueNums)
	require.Nil(t, h.Lookup("other"), "the other topic was deleted by its key")
	require.Equal(t, 2, h.Stats().Topics)
	require.ElementsMatch(t, []string{"t", "keep"}, h.AllTopics().TopicList)
	checkInterns(t, h.Manager, "after the re-creation")
}

// TestRecreatedTopicUnderConcurrentLookups is TestRecreatedTopicNeverMissing
// with concurrent lookups: registrations keep re-creating one topic
// under alternating routes while readers must always find it.
func TestRecreatedTopicUnderConcurrentLookups(t *testing.T) {
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t", "keep")))
	h.set(Settings{DeleteTopicWithBrokerRegistration: true})
	var stop atomic.Bool
	var misses atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if h.Lookup("t") == nil {
					misses.Add(1)
				}
			}
		}()
	}
	for i := range 3000 {
		mustRegister(t, h, reg("c1", "b1", "a1", 0, aliasBody(int64(2+i), "t", int32(1+i%2))))
	}
	stop.Store(true)
	wg.Wait()
	require.Zero(t, misses.Load(), "lookups found the re-created topic missing")
	checkInterns(t, h.Manager, "after the run")
}

// TestRecreatedTopicKeepsJavaTableSize: the table size behind the
// admin lists' order (topicPeak) counts a row removed and one added in
// one registration as Java does, removal first: 1,536 topics, one deleted
// by step 10b and one new put by 10c, stay 1,536 (Java's table grows at
// 1,537), and so does the key-aliased re-creation of a topic.
func TestRecreatedTopicKeepsJavaTableSize(t *testing.T) {
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	names := topicNames("t", 1536)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, names...)))
	require.Equal(t, 1536, h.topicPeak)
	h.set(Settings{DeleteTopicWithBrokerRegistration: true})
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, append(names[1:], "new")...)))
	require.Equal(t, 1536, h.topicPeak, "one removed, one added")
	b := body(3, append(names[2:], "new")...)
	tc := b.TopicConfigs[names[2]]
	delete(b.TopicConfigs, names[2])
	b.Keys[0] = "alias"
	b.TopicConfigs["alias"] = tc
	mustRegister(t, h, reg("c1", "b1", "a1", 0, b))
	require.Equal(t, 1535, h.Stats().Topics)
	require.Equal(t, 1536, h.topicPeak, "re-created by its alias")
	require.NotNil(t, h.Lookup(names[2]))
	checkModel(t, h.Manager, nil, "after the re-creation")
}

// TestCreatedAndWithdrawnInOneMutation: a topic created and removed
// in one mutation is never found, leaves no row, no index entry and no
// snapshot; one removed, re-created, removed and re-created again ends on
// its last route; counts and interns match after each.
func TestCreatedAndWithdrawnInOneMutation(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "keep", "old")))
	q := func(wq int32) wire.QueueData {
		return wire.QueueData{BrokerName: "b1", ReadQueueNums: 8, WriteQueueNums: wq, Perm: 6}
	}
	before := h.Lookup("old")
	h.mutate(func(tx *mutation) {
		tx.putQueue("new", q(3))
		require.Nil(t, h.Lookup("new"), "a row without its snapshot answers as missing")
		tx.removeTopic(h.row("new"))
		require.Nil(t, h.Lookup("new"))
		require.Nil(t, h.row("new"))

		old := h.row("old")
		tx.removeTopic(old)
		require.Same(t, before, h.Lookup("old"), "removed, the row answers its last snapshot until the commit")
		tx.putQueue("old", q(4))
		require.Same(t, old, h.row("old"), "re-created on its row")
		tx.removeQueue(old, "b1")
		require.Nil(t, h.row("old"))
		tx.putQueue("old", q(5))
		require.Same(t, before, h.Lookup("old"))
		require.Equal(t, 1, tx.withdrawals, "one removed row waits for the commit")
	})
	require.Nil(t, h.Lookup("new"))
	require.Nil(t, h.pub.get("new"), "withdrawn")
	require.Equal(t, int32(5), h.Lookup("old").Route.QueueDatas[0].WriteQueueNums)
	require.Zero(t, h.mut.withdrawals)
	require.ElementsMatch(t, []string{"keep", "old"}, h.AllTopics().TopicList)
	checkModel(t, h.Manager, nil, "after the mutation")
}

// TestRecreatedTopicJavaOrder: Java removes a re-created topic from
// topicQueueTable and puts it back at the end of its bin, so the topic
// lists show it after the topics that share its bin (names with one Java
// hash share every bin).
func TestRecreatedTopicJavaOrder(t *testing.T) {
	h := newHarness(t, false)
	names := collidingNames(2)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, names...)))
	require.Equal(t, names, h.AllTopics().TopicList)
	h.set(Settings{DeleteTopicWithBrokerRegistration: true})
	b := body(2, names[1:]...)
	b.Keys = append(b.Keys, "alias")
	b.TopicConfigs["alias"] = wire.TopicConfig{TopicName: names[0], ReadQueueNums: 8, WriteQueueNums: 3, Perm: 6, Pos: 3}
	mustRegister(t, h, reg("c1", "b1", "a1", 0, b))
	want := append(slices.Clone(names[1:]), names[0])
	require.Equal(t, want, h.AllTopics().TopicList, "re-created at the end of its bin")
	require.Equal(t, want, h.TopicsByCluster("c1").TopicList)
}
