package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBodySmartMatch: fastjson matches a bean property whose name is no
// field's exact name ignoring case, '_' and '-', and "is" + the name of a
// boolean field (JavaBeanDeserializer.smartMatch), in every bean of the
// register and route bodies; map keys are not properties.
func TestBodySmartMatch(t *testing.T) {
	rb, err := DecodeRegisterBody([]byte(`{"TopicConfigSerializeWrapper":{"data_version":{"Counter":2,"TIME-STAMP":5},`+
		`"topicconfigtable":{"A":{"TOPIC_NAME":"A","PERM":4,"isOrder":true,"read_queue_nums":3}},`+
		`"topic_queue_mapping_info_map":{"A":{"BNAME":"b","isDirty":true,"Scope":"s","curr-id-map":{"1":2}}}},`+
		`"FILTER_SERVER_LIST":["f"]}`), 479, false)
	require.NoError(t, err)
	require.Equal(t, DataVersion{Counter: 2, Timestamp: 5}, rb.DataVersion)
	require.Equal(t, []string{"f"}, rb.FilterServerList)
	tc := rb.TopicConfigs["A"]
	require.Equal(t, "A", tc.TopicName)
	require.Equal(t, int32(4), tc.Perm)
	require.Equal(t, int32(3), tc.ReadQueueNums)
	require.True(t, tc.Order)
	m := rb.MappingInfos["A"]
	require.NotNil(t, m)
	require.Equal(t, "b", m.Bname)
	require.Equal(t, "s", m.Scope)
	require.True(t, m.Dirty)
	require.Equal(t, map[int32]int32{1: 2}, m.CurrIDMap)

	rb, err = DecodeRegisterBody([]byte(`{"topicConfigSerializeWrapper":{"topicConfigTable":{"A":{"topicName":"A","isPerm":2}}}}`), 479, false)
	require.NoError(t, err)
	require.Equal(t, int32(6), rb.TopicConfigs["A"].Perm, `"is" matches boolean fields only`)

	// A legacy body is a bare TopicConfigSerializeWrapper: no mapping table,
	// whatever its spelling.
	rb, err = DecodeRegisterBody([]byte(`{"topicQueueMappingInfoMap":{"A":{}},"TOPIC_QUEUE_MAPPING_INFO_MAP":{"A":{}}}`), 36, false)
	require.NoError(t, err)
	require.Nil(t, rb.MappingInfos)

	r, err := DecodeTopicRouteData([]byte(`{"QUEUE_DATAS":[{"Broker_Name":"b","PERM":6,"write-queue-nums":2}],` +
		`"BrokerDatas":[{"BROKERNAME":"b","isEnableActingMaster":true,"broker_addrs":{"0":"a"}}]}`))
	require.NoError(t, err)
	require.Equal(t, []QueueData{{BrokerName: "b", Perm: 6, WriteQueueNums: 2}}, r.QueueDatas)
	require.Equal(t, []BrokerData{{BrokerName: "b", EnableActingMaster: true, BrokerAddrs: map[int64]string{0: "a"}}},
		r.BrokerDatas)
}
