package wire

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"maps"
	"testing"

	"github.com/stretchr/testify/require"
)

// sampleRegister is a register body with every part a 5.x broker can send.
func sampleRegister(topics int) *RegisterBody {
	rb := &RegisterBody{
		DataVersion:      DataVersion{Counter: 7, StateVersion: 2, Timestamp: 1700000000000},
		TopicConfigs:     make(map[string]TopicConfig, topics),
		FilterServerList: []string{"10.0.0.1:30000"},
		MappingInfos: map[string]*TopicQueueMappingInfo{"T0": {Topic: "T0", Scope: "__global__",
			TotalQueues: 2, Bname: "broker-a", Epoch: 5, CurrIDMap: map[int32]int32{0: 0, 1: 1}}},
	}
	for i := range topics {
		name := fmt.Sprintf("T%d", i)
		rb.TopicConfigs[name] = TopicConfig{TopicName: name, ReadQueueNums: 8, WriteQueueNums: 8,
			Perm: 6, TopicFilterType: FilterSingleTag}
	}
	tc := rb.TopicConfigs["T0"]
	tc.Attributes, tc.TopicFilterType = map[string]string{"+message.type": "NORMAL"}, FilterMultiTag
	rb.TopicConfigs["T0"] = tc
	rb.TopicsDigest = DigestTopics(rb.TopicConfigs) // every decoder fills it
	rb.Keys = rb.KeyOrder()                         // the encoders write them in this order
	for i, k := range rb.Keys {
		tc := rb.TopicConfigs[k]
		tc.Pos = int32(i)
		rb.TopicConfigs[k] = tc
	}
	return rb
}

func TestRegisterJSONRoundTrip(t *testing.T) {
	want := sampleRegister(20)
	body, err := EncodeRegisterBody(want, 479, false)
	require.NoError(t, err)
	got, err := DecodeRegisterBody(body, 479, false)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func TestRegisterCompressedRoundTrip(t *testing.T) {
	want := sampleRegister(50)
	body, err := EncodeRegisterBody(want, 479, true)
	require.NoError(t, err)
	got, err := DecodeRegisterBody(body, 479, true)
	require.NoError(t, err)
	require.Equal(t, want, got)

	old, err := DecodeRegisterBody(body, 412, true)
	require.NoError(t, err)
	require.Nil(t, old.MappingInfos)
	require.Equal(t, want.TopicConfigs, old.TopicConfigs)
}

func TestRegisterCompressedWithoutMappingSection(t *testing.T) {
	want := sampleRegister(3)
	body, err := EncodeRegisterBody(want, 412, true)
	require.NoError(t, err)
	got, err := DecodeRegisterBody(body, 412, true)
	require.NoError(t, err)
	want.MappingInfos = nil
	require.Equal(t, want, got)
	_, err = DecodeRegisterBody(body, 413, true)
	require.ErrorIs(t, err, ErrCompressed)
}

func TestRegisterLegacyWrapper(t *testing.T) {
	want := sampleRegister(4)
	body, err := EncodeRegisterBody(want, 36, true)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(body, []byte(`{"dataVersion":`)))
	got, err := DecodeRegisterBody(body, 36, true)
	require.NoError(t, err)
	want.FilterServerList, want.MappingInfos = nil, nil
	require.Equal(t, want, got)
}

func TestRegisterEmptyAndDefaults(t *testing.T) {
	rb, err := DecodeRegisterBody(nil, 479, false)
	require.NoError(t, err)
	require.Equal(t, &RegisterBody{TopicConfigs: map[string]TopicConfig{}, FilterServerList: []string{}}, rb)
	rb, err = DecodeRegisterBody(nil, 10, false)
	require.NoError(t, err)
	require.Nil(t, rb.FilterServerList)
	_, err = DecodeRegisterBody([]byte("{}"), -1, false)
	require.ErrorIs(t, err, ErrVersion)

	rb, err = DecodeRegisterBody([]byte(`{"filterServerList":null,"topicConfigSerializeWrapper":{"topicConfigTable":{"A":{}}}}`), 479, false)
	require.NoError(t, err)
	require.Nil(t, rb.FilterServerList)
	require.Equal(t, map[string]TopicConfig{"A": {ReadQueueNums: 16, WriteQueueNums: 16, Perm: 6,
		TopicFilterType: FilterSingleTag, NameNull: true}}, rb.TopicConfigs)
	_, err = DecodeRegisterBody([]byte(`null`), 479, false)
	require.ErrorIs(t, err, ErrNullBody)
}

// compressedRaw deflates raw content of a compressed register body.
func compressedRaw(t *testing.T, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, err := zw.Write(raw)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// rawBody builds inflated content: data version, the given topic lines,
// filter JSON and an empty mapping section.
func rawBody(count int32, lines []string, filters string) []byte {
	return rawBodyDV(`{"counter":1,"stateVersion":0,"timestamp":2}`, count, lines, filters)
}

// rawBodyDV is rawBody with the data version section dv.
func rawBodyDV(dv string, count int32, lines []string, filters string) []byte {
	raw := appendChunk(nil, []byte(dv))
	raw = binary.BigEndian.AppendUint32(raw, uint32(count))
	for _, l := range lines {
		raw = appendChunk(raw, []byte(l))
	}
	raw = appendChunk(raw, []byte(filters))
	return binary.BigEndian.AppendUint32(raw, 0)
}

func TestCompressedTopicLines(t *testing.T) {
	lines := []string{"A 1 2 6 SINGLE_TAG {}", "B 3 4 2 MULTI_TAG {\"k\":\"v\"}",
		"C 1 1 6 SINGLE_TAG", "D 1 1 6 SINGLE_TAG {\"a b\":\"c\"}", "E +1 1 6 SINGLE_TAG  {\"x\":\"y\"}"}
	rb, err := DecodeRegisterBody(compressedRaw(t, rawBody(5, lines, "not json")), 479, true)
	require.NoError(t, err)
	require.Len(t, rb.TopicConfigs, 5)
	require.Equal(t, TopicConfig{TopicName: "B", ReadQueueNums: 3, WriteQueueNums: 4, Perm: 2, Pos: 1,
		TopicFilterType: FilterMultiTag, Attributes: map[string]string{"k": "v"}}, rb.TopicConfigs["B"])
	require.Equal(t, []string{"A", "B", "C", "D", "E"}, rb.Keys)
	require.Nil(t, rb.TopicConfigs["D"].Attributes)
	require.Nil(t, rb.TopicConfigs["E"].Attributes)
	require.Equal(t, []string{}, rb.FilterServerList)

	rb, err = DecodeRegisterBody(compressedRaw(t, rawBody(-3, nil, "null")), 479, true)
	require.NoError(t, err)
	require.Empty(t, rb.TopicConfigs)
	require.Nil(t, rb.FilterServerList)
}

func TestCompressedBadInput(t *testing.T) {
	bad := map[string]error{
		"A 1 2 6":                     ErrTopicConfig,
		"A 1 2 6 ":                    ErrTopicConfig,
		"A x 2 6 SINGLE_TAG":          ErrTopicConfig,
		"A 1 2 6 OTHER_TAG":           ErrTopicConfig,
		"A 1 2 6  SINGLE_TAG":         ErrTopicConfig,
		"A 1 2 9999999999 SINGLE_TAG": ErrTopicConfig,
	}
	for line, want := range bad {
		_, err := DecodeRegisterBody(compressedRaw(t, rawBody(1, []string{line}, "[]")), 479, true)
		require.ErrorIs(t, err, want, line)
	}
	_, err := DecodeRegisterBody(compressedRaw(t, rawBody(1<<30, nil, "[]")), 479, true)
	require.ErrorIs(t, err, ErrCompressed)
	_, err = DecodeRegisterBody([]byte("not zlib"), 479, true)
	require.ErrorIs(t, err, ErrCompressed)
	_, err = DecodeRegisterBody(compressedRaw(t, []byte{0, 0}), 479, true)
	require.ErrorIs(t, err, ErrCompressed)
	neg := binary.BigEndian.AppendUint32(nil, 0xFFFFFFFF)
	_, err = DecodeRegisterBody(compressedRaw(t, neg), 479, true)
	require.ErrorIs(t, err, ErrCompressed)
}

func TestCompressedSizeLimit(t *testing.T) {
	bomb := compressedRaw(t, make([]byte, 4<<20))
	require.Less(t, len(bomb), 8<<10)
	_, err := DecodeRegisterBodyLimit(bomb, 479, true, 1<<20)
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestCompressedTruncatedStreamStillDecodes(t *testing.T) {
	body, err := EncodeRegisterBody(sampleRegister(2), 479, true)
	require.NoError(t, err)
	got, err := DecodeRegisterBody(body[:len(body)-4], 479, true) // Adler-32 cut off
	require.NoError(t, err)
	require.Len(t, got.TopicConfigs, 2)
}

func TestCRC32(t *testing.T) {
	require.Equal(t, int32(0), CRC32(nil))
	require.Equal(t, int32(0x3610A686&0x7FFFFFFF), CRC32([]byte("hello")))
}

// TestRegisterPrintDuplicates checks that the decoders' digest is the digest
// of the final table when a later duplicate key replaced an entry.
func TestRegisterPrintDuplicates(t *testing.T) {
	js := `{"topicConfigSerializeWrapper":{"topicConfigTable":{"A":{"topicName":"A","perm":6},` +
		`"B":{"topicName":"B"},"A":{"topicName":"A","perm":2}}}}`
	rb, err := DecodeRegisterBody([]byte(js), 479, false)
	require.NoError(t, err)
	require.Len(t, rb.TopicConfigs, 2)
	require.Equal(t, int32(2), rb.TopicConfigs["A"].Perm)
	require.Equal(t, DigestTopics(rb.TopicConfigs), rb.TopicsDigest)
	require.Equal(t, 2, rb.TopicsDigest.Count())

	lines := []string{"A 1 2 6 SINGLE_TAG {}", "B 3 4 2 MULTI_TAG {}", "A 1 2 2 SINGLE_TAG {}"}
	rb, err = DecodeRegisterBody(compressedRaw(t, rawBody(3, lines, "[]")), 479, true)
	require.NoError(t, err)
	require.Len(t, rb.TopicConfigs, 2)
	require.Equal(t, []string{"A", "B"}, rb.Keys, "a repeated key keeps its first place")
	require.Equal(t, int32(0), rb.TopicConfigs["A"].Pos)
	require.Equal(t, int32(1), rb.TopicConfigs["B"].Pos)
	require.Equal(t, int32(2), rb.TopicConfigs["A"].Perm, "and takes the last value")
	require.Equal(t, DigestTopics(rb.TopicConfigs), rb.TopicsDigest)

	other := maps.Clone(rb.TopicConfigs)
	tc := other["B"]
	tc.WriteQueueNums++
	other["B"] = tc
	require.NotEqual(t, rb.TopicsDigest, DigestTopics(other), "a queue count is part of the digest")
}

// TestReleaseRegisterBodyReusesTable: a released table comes back empty
// and decodes the next body correctly; nil and table-less bodies are safe.
func TestReleaseRegisterBodyReusesTable(t *testing.T) {
	want := sampleRegister(30)
	enc, err := EncodeRegisterBody(want, 479, false)
	require.NoError(t, err)
	for range 3 {
		got, err := DecodeRegisterBody(enc, 479, false)
		require.NoError(t, err)
		require.Equal(t, want, got)
		ReleaseRegisterBody(got)
		require.Nil(t, got.TopicConfigs)
	}
	small, err := EncodeRegisterBody(sampleRegister(2), 479, true)
	require.NoError(t, err)
	got, err := DecodeRegisterBody(small, 479, true)
	require.NoError(t, err)
	require.Len(t, got.TopicConfigs, 2, "a recycled table holds nothing of its last use")
	ReleaseRegisterBody(nil)
	ReleaseRegisterBody(&RegisterBody{})
}
