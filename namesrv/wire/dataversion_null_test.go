package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDataVersionNullTimestampIsUnstamped: fastjson gives a null long
// (null, "", "null", "NULL") to the setter of no primitive field
// (FieldDeserializer.setValue), so DataVersion keeps the timestamp it was
// built with, the time of decoding, or the one an earlier member set.
func TestDataVersionNullTimestampIsUnstamped(t *testing.T) {
	wrapper := func(dv string) []byte {
		return []byte(`{"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":` + dv +
			`,"topicConfigTable":{"A":{"topicName":"A"}}}}`)
	}
	for _, null := range []string{`null`, `""`, `"null"`, `"NULL"`} {
		dv := `{"counter":1,"stateVersion":2,"timestamp":` + null + `}`
		rb, err := DecodeRegisterBody(wrapper(dv), 479, false)
		require.NoError(t, err, dv)
		require.True(t, rb.DataVersionUnstamped, dv)
		require.Equal(t, DataVersion{Counter: 1, StateVersion: 2}, rb.DataVersion, dv)

		got, stamped, err := DecodeDataVersionStamp([]byte(dv))
		require.NoError(t, err, dv)
		require.False(t, stamped, dv)
		require.Equal(t, &DataVersion{Counter: 1, StateVersion: 2}, got, dv)

		rb, err = DecodeRegisterBody(compressedRaw(t, rawBodyDV(dv, 0, nil, "[]")), 479, true)
		require.NoError(t, err, dv)
		require.True(t, rb.DataVersionUnstamped, dv)

		kept := `{"timestamp":5,"timestamp":` + null + `}`
		rb, err = DecodeRegisterBody(wrapper(kept), 479, false)
		require.NoError(t, err, kept)
		require.False(t, rb.DataVersionUnstamped, kept)
		require.Equal(t, DataVersion{Timestamp: 5}, rb.DataVersion, "null sets nothing: %s", kept)
	}
}

// TestDataVersionNullBody: DataVersion.decode of "null" (or of no bytes,
// in the compressed form's section) is null, a version the name server
// never holds; Java registers the body and answers 322 changed=true.
func TestDataVersionNullBody(t *testing.T) {
	dv, stamped, err := DecodeDataVersionStamp([]byte(` null `))
	require.NoError(t, err)
	require.False(t, stamped)
	require.Equal(t, &DataVersion{}, dv)

	for _, section := range []string{`null`, ``} {
		rb, err := DecodeRegisterBody(compressedRaw(t, rawBodyDV(section, 1, []string{"A 1 1 6 SINGLE_TAG"}, "[]")),
			479, true)
		require.NoError(t, err, "section %q", section)
		require.True(t, rb.DataVersionUnstamped, "section %q", section)
		require.Len(t, rb.TopicConfigs, 1)
	}
}

// TestRepeatedWrapperIsANewWrapper: fastjson builds a new
// TopicConfigSerializeWrapper (with a new DataVersion() and an empty
// table) for each occurrence of the key, and a new map for each
// topicConfigTable: the last occurrence is the whole of it.
func TestRepeatedWrapperIsANewWrapper(t *testing.T) {
	first := `"topicConfigSerializeWrapper":{"dataVersion":{"counter":1,"timestamp":2},` +
		`"topicConfigTable":{"A":{"topicName":"A"}}}`
	rb, err := DecodeRegisterBody([]byte(`{`+first+`,"topicConfigSerializeWrapper":{"topicConfigTable":{"B":{"topicName":"B"}}}}`),
		479, false)
	require.NoError(t, err)
	require.True(t, rb.DataVersionUnstamped, "the last wrapper has no dataVersion")
	require.Equal(t, DataVersion{}, rb.DataVersion)
	require.Equal(t, []string{"B"}, rb.Keys)
	require.Len(t, rb.TopicConfigs, 1)
	require.Equal(t, DigestTopics(rb.TopicConfigs), rb.TopicsDigest)

	rb, err = DecodeRegisterBody([]byte(`{`+first+`,"topicConfigSerializeWrapper":null}`), 479, false)
	require.NoError(t, err)
	require.True(t, rb.DataVersionUnstamped)
	require.Empty(t, rb.TopicConfigs)

	rb, err = DecodeRegisterBody([]byte(`{"topicConfigSerializeWrapper":{"dataVersion":{"timestamp":2},`+
		`"topicConfigTable":{"A":{"topicName":"A"}},"topicConfigTable":{"B":{"topicName":"B"},"C":{"topicName":"C"}}}}`),
		479, false)
	require.NoError(t, err)
	require.False(t, rb.DataVersionUnstamped)
	require.Equal(t, []string{"B", "C"}, rb.Keys, "a new map per topicConfigTable")
	require.Len(t, rb.TopicConfigs, 2)
	require.Equal(t, int32(1), rb.TopicConfigs["C"].Pos)
	require.Equal(t, DigestTopics(rb.TopicConfigs), rb.TopicsDigest)
}

// TestDataVersionNullFlag: a null DataVersion (fastjson sets the null) is
// told apart from one without timestamp.
func TestDataVersionNullFlag(t *testing.T) {
	for body, null := range map[string]bool{
		`{"topicConfigSerializeWrapper":{"dataVersion":null}}`:                                  true,
		`{"topicConfigSerializeWrapper":{"dataVersion":{}}}`:                                    false,
		`{"topicConfigSerializeWrapper":{"dataVersion":null,"dataVersion":{"counter":1}}}`:      false,
		`{"topicConfigSerializeWrapper":{"dataVersion":null},"topicConfigSerializeWrapper":{}}`: false,
		`{"topicConfigSerializeWrapper":{}}`:                                                    false,
	} {
		rb, err := DecodeRegisterBody([]byte(body), 479, false)
		require.NoError(t, err, body)
		require.Equal(t, null, rb.DataVersionNull, body)
		require.True(t, rb.DataVersionUnstamped, body)
	}
	for section, null := range map[string]bool{`null`: true, ``: true, `{}`: false} {
		rb, err := DecodeRegisterBody(compressedRaw(t, rawBodyDV(section, 0, nil, "[]")), 479, true)
		require.NoError(t, err, section)
		require.Equal(t, null, rb.DataVersionNull, "section %q", section)
	}
}

// TestTopicConfigNullIntKeepsDefault: a null int sets no TopicConfig
// field (fastjson calls no primitive setter), so perm stays 6 and the
// queue numbers 16, as Java's TopicConfig defaults them.
func TestTopicConfigNullIntKeepsDefault(t *testing.T) {
	rb, err := DecodeRegisterBody([]byte(`{"topicConfigSerializeWrapper":{"topicConfigTable":{"A":{"topicName":"A",`+
		`"perm":null,"readQueueNums":"","writeQueueNums":"null","topicSysFlag":"NULL"},`+
		`"B":{"topicName":"B","perm":2,"perm":null,"readQueueNums":4}}}}`), 479, false)
	require.NoError(t, err)
	require.Equal(t, TopicConfig{TopicName: "A", ReadQueueNums: 16, WriteQueueNums: 16,
		Perm: PermRead | PermWrite, TopicFilterType: FilterSingleTag}, rb.TopicConfigs["A"])
	require.Equal(t, TopicConfig{TopicName: "B", ReadQueueNums: 4, WriteQueueNums: 16, Perm: PermWrite,
		TopicFilterType: FilterSingleTag, Pos: 1}, rb.TopicConfigs["B"], "null sets nothing: an earlier value stays")
}

// TestTopicTableNullFlags: a null table or wrapper is told apart from an
// empty one; a later wrapper starts over.
func TestTopicTableNullFlags(t *testing.T) {
	cases := []struct {
		body           string
		version        int32
		table, wrapper bool
	}{
		{`{"topicConfigSerializeWrapper":null}`, 479, true, true},
		{`{"topicConfigSerializeWrapper":{"topicConfigTable":null}}`, 479, true, false},
		{`{"topicConfigSerializeWrapper":{"topicConfigTable":{}}}`, 479, false, false},
		{`{"topicConfigSerializeWrapper":null,"topicConfigSerializeWrapper":{}}`, 479, false, false},
		{`{"topicConfigSerializeWrapper":{"topicConfigTable":null,"topicConfigTable":{}}}`, 479, false, false},
		{`null`, 36, true, true},
		{`{"topicConfigTable":null}`, 36, true, false},
	}
	for _, c := range cases {
		rb, err := DecodeRegisterBody([]byte(c.body), c.version, false)
		require.NoError(t, err, c.body)
		require.Equal(t, c.table, rb.TopicTableNull, c.body)
		require.Equal(t, c.wrapper, rb.WrapperNull, c.body)
		require.True(t, rb.DataVersionUnstamped, c.body)
	}
	_, err := DecodeRegisterBody([]byte(`null`), 479, false)
	require.ErrorIs(t, err, ErrNullBody, "Java's processor throws on a null RegisterBrokerBody")
}
