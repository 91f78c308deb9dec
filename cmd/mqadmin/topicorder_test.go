package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// Java's TopicListSubCommand prints the TopicList set fastjson decoded the
// body into: a HashSet filled in body order. With 12 topics the
// NameServer's set (a ConcurrentHashMap) has grown to 32 buckets and the
// HashSet has not, so the printed order is not the body's.
func TestTopicListPrintsJavaHashSetOrder(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	var topics []fakebroker.TopicConfig
	for _, name := range []string{"T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7"} {
		topics = append(topics, fakebroker.Topic(name, 1))
	}
	startBroker(t, topicBroker("broker-a", topics...), ns)
	c := admin.New(admin.Options{})
	defer c.Close()
	body, err := c.AllTopics(testCtx(t), ns)
	require.NoError(t, err)
	require.Len(t, body, 12)
	want := javahash.InsertionOrder(body, javahash.HashMapDefault, javahash.StringHash)
	require.NotEqual(t, body, want, "the case must tell the two orders apart")

	out := requireOK(t, mqadmin(t, "topicList", "-n", ns))
	require.Equal(t, want, strings.Fields(out))
	out = requireOK(t, mqadmin(t, "topicList", "-n", ns, "-c"))
	var printed []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		printed = append(printed, strings.Fields(line)[1])
	}
	require.Equal(t, want, printed)
}
