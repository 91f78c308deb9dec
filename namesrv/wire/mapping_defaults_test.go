package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMappingInfoJavaDefaults: TopicQueueMappingInfo starts with an empty
// currIdMap and scope "__global__"; a body without currIdMap keeps the
// empty map (written {}), "currIdMap":null and "scope":null set nulls,
// which fastjson leaves out.
func TestMappingInfoJavaDefaults(t *testing.T) {
	decode := func(info string) *TopicQueueMappingInfo {
		rb, err := DecodeRegisterBody([]byte(`{"topicConfigSerializeWrapper":{"dataVersion":{"timestamp":1},`+
			`"topicConfigTable":{"T":{"topicName":"T"}},"topicQueueMappingInfoMap":{"T":`+info+`}}}`), 479, false)
		require.NoError(t, err)
		require.NotNil(t, rb.MappingInfos["T"], info)
		return rb.MappingInfos["T"]
	}
	encode := func(m *TopicQueueMappingInfo) string {
		r := &TopicRouteData{FilterServerTable: map[string][]string{},
			TopicQueueMappingByBroker: map[string]*TopicQueueMappingInfo{"b": m}}
		out := string(AppendTopicRouteData(nil, r, FastjsonDefault))
		_, after, _ := strings.Cut(out, `"topicQueueMappingByBroker":{"b":`)
		return after
	}
	require.Equal(t, `{"bname":"b","currIdMap":{},"dirty":false,"epoch":0,"scope":"__global__","topic":"T","totalQueues":1}}}`,
		encode(decode(`{"bname":"b","topic":"T","totalQueues":1}`)))
	require.Equal(t, `{"bname":"b","dirty":false,"epoch":0,"topic":"T","totalQueues":1}}}`,
		encode(decode(`{"bname":"b","topic":"T","totalQueues":1,"currIdMap":null,"scope":null}`)))
	require.Equal(t, `{"bname":"b","currIdMap":{0:1},"dirty":false,"epoch":0,"scope":"s","topic":"T","totalQueues":1}}}`,
		encode(decode(`{"bname":"b","topic":"T","totalQueues":1,"currIdMap":{"0":1},"scope":"s"}`)))
}
