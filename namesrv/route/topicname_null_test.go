package route

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// TestTopicConfigWithoutNameCreatesNoTopic: Java's registerBroker looks up
// topicQueueTable by the config's null topicName, which creates nothing
// (it throws); the other topics of the registration are applied here.
func TestTopicConfigWithoutNameCreatesNoTopic(t *testing.T) {
	h := newHarness(t, false)
	b := body(1, "A", "B")
	b.TopicConfigs["A"] = wire.TopicConfig{NameNull: true, ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6}
	mustRegister(t, h, reg("c1", "b1", "10.0.0.1:10911", 0, b))
	require.Equal(t, []string{"B"}, h.AllTopics().TopicList)
	require.Nil(t, h.Lookup(""))
}
