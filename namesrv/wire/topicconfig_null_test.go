package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// registerBody wraps a topicConfigTable in a RegisterBrokerBody.
func registerBody(table string) []byte {
	return []byte(`{"topicConfigSerializeWrapper":{"dataVersion":{"counter":1,"timestamp":1},"topicConfigTable":` +
		table + `},"filterServerList":[]}`)
}

// TestTopicConfigTableNullEntryRefused: fastjson puts a null entry into
// the wrapper's ConcurrentHashMap, whose put throws, so Java's decoder
// fails and the registration is refused whole (code 1).
func TestTopicConfigTableNullEntryRefused(t *testing.T) {
	_, err := DecodeRegisterBody(registerBody(`{"A":{"topicName":"A"},"B":null}`), 479, false)
	require.ErrorIs(t, err, ErrNullTopicConfig)
	_, err = DecodeRegisterBody(registerBody(`{"A":{"topicName":"A"}}`), 479, false)
	require.NoError(t, err)
}

// TestTopicConfigWithoutNameMarked: TopicConfig.topicName defaults to
// null; the decoder marks a config whose name is absent or null so that
// registration creates no topic for it, and keeps "" (a real name).
func TestTopicConfigWithoutNameMarked(t *testing.T) {
	rb, err := DecodeRegisterBody(registerBody(`{"A":{"perm":6},"B":{"topicName":null},"C":{"topicName":""},`+
		`"D":{"topicName":"D"}}`), 479, false)
	require.NoError(t, err)
	require.True(t, rb.TopicConfigs["A"].NameNull)
	require.True(t, rb.TopicConfigs["B"].NameNull)
	require.False(t, rb.TopicConfigs["C"].NameNull)
	require.False(t, rb.TopicConfigs["D"].NameNull)
}
