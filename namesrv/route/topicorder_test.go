package route

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/javahash"
)

// Topics sharing a bucket of the TopicList set come out in the order of
// topicQueueTable (a ConcurrentHashMap of 2048 buckets), not by name:
// RMQ_SYS_TRANS_OP_HALF_TOPIC and TopicTest14 share bucket 7 of 16, and
// TopicTest14 (bucket 631 of 2048) precedes it (1495) in Java's list.
func TestTopicListKeepsTopicQueueTableOrderInABucket(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "RMQ_SYS_TRANS_OP_HALF_TOPIC", "TopicTest14")))
	want := []string{"TopicTest14", "RMQ_SYS_TRANS_OP_HALF_TOPIC"}
	require.Equal(t, want, h.AllTopics().TopicList)
	require.Equal(t, want, h.TopicsByCluster("c1").TopicList)
}

// Topics sharing a bucket of topicQueueTable itself come out in the order
// they were added to it: t22 and t147 share bucket 437 of 2048.
func TestTopicListKeepsInsertionOrderInATableBucket(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t22", "x1")))
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t147", "x2")))
	require.Equal(t, []string{"t22", "t147"}, filter(h.AllTopics().TopicList, "t22", "t147"))

	h.DeleteTopic("t22", "")
	mustRegister(t, h, reg("c1", "b3", "a3", 0, body(1, "t22", "x3")))
	require.Equal(t, []string{"t147", "t22"}, filter(h.AllTopics().TopicList, "t22", "t147"),
		"a topic added again goes to the end of its bucket")
}

// filter keeps the elements of list that are in keep, in list's order.
func filter(list []string, keep ...string) []string {
	var out []string
	for _, s := range list {
		for _, k := range keep {
			if s == k {
				out = append(out, s)
			}
		}
	}
	return out
}

// javaTopicQueueTable follows the keys of Java's topicQueueTable through
// registrations and deletions while it holds fewer than 1,536 topics (no
// resize): a bin lists its topics in the order they were last added, so
// the table's order is that of a fresh map filled in that order.
type javaTopicQueueTable struct{ added []string }

// register adds a body's new topics as registerBroker does: in the
// iteration order of the decoder's new ConcurrentHashMap<>().
func (j *javaTopicQueueTable) register(bodyOrder []string) {
	for _, k := range javahash.InsertionOrder(bodyOrder, javahash.ConcurrentDefault, javahash.StringHash) {
		if !slices.Contains(j.added, k) {
			j.added = append(j.added, k)
		}
	}
}

func (j *javaTopicQueueTable) remove(topic string) {
	j.added = slices.DeleteFunc(j.added, func(s string) bool { return s == topic })
}

// topicList is getAllTopicList: the table's keys put into a
// ConcurrentHashMap.newKeySet in the table's order.
func (j *javaTopicQueueTable) topicList() []string {
	table := javahash.InsertionOrder(j.added, topicQueueTable, javahash.StringHash)
	return javahash.InsertionOrder(table, javahash.ConcurrentDefault, javahash.StringHash)
}

// Topics learned in one registration, then more from a second broker, then
// deleted and added again by a third: the topic list equals Java's element
// by element after every step. The bodies list colliding topics against
// name order (Topic_071 before T004, jb1 before Topic_037).
func TestTopicListFollowsJavaThroughRegistrationsAndDeletes(t *testing.T) {
	h := newHarness(t, false)
	var java javaTopicQueueTable
	step := func(name string) {
		require.Equal(t, java.topicList(), h.AllTopics().TopicList, name)
	}
	first := []string{"jb1"}
	for i := range 100 {
		first = append(first, fmt.Sprintf("Topic_%03d", i))
	}
	for i := 1; i < 10; i++ {
		first = append(first, fmt.Sprintf("T%03d", i))
	}
	first = javahash.InsertionOrder(first, topicQueueTable, javahash.StringHash) // a broker's table order
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, first...)))
	java.register(first)
	step("one-shot registration")

	second := []string{"T104", "Topic_170", "Topic_071", "Topic_171", "jb2", "T004"}
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, second...)))
	java.register(second)
	step("a second broker")

	for _, tp := range []string{"Topic_071", "jb1", "T007"} {
		h.DeleteTopic(tp, "")
		java.remove(tp)
	}
	step("deleted")

	third := []string{"T007", "Topic_071", "jb1", "Topic_037"}
	mustRegister(t, h, reg("c1", "b3", "a3", 0, body(1, third...)))
	java.register(third)
	step("added again")
}
