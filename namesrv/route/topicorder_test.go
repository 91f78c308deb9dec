package route

import (
	"testing"

	"github.com/stretchr/testify/require"
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
