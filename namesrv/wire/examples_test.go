package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Real fastjson 1.2.83 output of the bodies of docs/protocol.md section 3.2
// and section 3.3.
const (
	exampleRouteDefault  = `{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",2:"10.0.0.2:10911",10:"10.0.0.3:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`
	exampleRouteStandard = `{"brokerDatas":[{"brokerAddrs":{"0":"10.0.0.1:10911","2":"10.0.0.2:10911","10":"10.0.0.3:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`
	exampleFullStandard  = `{"brokerDatas":[{"brokerAddrs":{"0":"10.0.0.1:10911","2":"10.0.0.2:10911","10":"10.0.0.3:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false,"zoneName":"zone-\u00E9\/x"}],"filterServerTable":{"10.0.0.1:10911":["10.0.0.1:30000"]},"orderTopicConf":"broker-a:4","queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}],"topicQueueMappingByBroker":{"broker-a":{"bname":"broker-a","currIdMap":{"0":0,"1":1},"dirty":false,"epoch":"9007199254740993","scope":"__global__","topic":"T","totalQueues":2}}}`
	exampleClusterInfo   = `{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"10.0.0.1:10911",2:"10.0.0.2:10911",10:"10.0.0.3:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}`
)

// exampleFullDefault is the all-optional example in the default flavour.
var exampleFullDefault = strings.NewReplacer(
	`"0":`, `0:`, `"1":`, `1:`, `"2":`, `2:`, `"10":`, `10:`,
	`zone-\u00E9\/x`, `zone-é/x`, `"9007199254740993"`, `9007199254740993`,
).Replace(exampleFullStandard)

// threeReplicas is the broker group of the TopicRouteData examples.
func threeReplicas() BrokerData {
	return BrokerData{Cluster: "DefaultCluster", BrokerName: "broker-a",
		BrokerAddrs: map[int64]string{0: "10.0.0.1:10911", 2: "10.0.0.2:10911", 10: "10.0.0.3:10911"}}
}

// exampleRoute is the route of the three-replica examples.
func exampleRoute() *TopicRouteData {
	return &TopicRouteData{
		BrokerDatas:       []BrokerData{threeReplicas()},
		QueueDatas:        []QueueData{{BrokerName: "broker-a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6}},
		FilterServerTable: map[string][]string{},
	}
}

// exampleFullRoute has every optional part set.
func exampleFullRoute() *TopicRouteData {
	r := exampleRoute()
	r.BrokerDatas[0].ZoneName = "zone-é/x"
	r.OrderTopicConf = "broker-a:4"
	r.FilterServerTable = map[string][]string{"10.0.0.1:10911": {"10.0.0.1:30000"}, "10.0.0.2:10911": nil}
	r.TopicQueueMappingByBroker = map[string]*TopicQueueMappingInfo{"broker-a": {
		Topic: "T", Scope: "__global__", TotalQueues: 2, Bname: "broker-a",
		Epoch: 9007199254740993, CurrIDMap: map[int32]int32{0: 0, 1: 1}}}
	return r
}

func TestReferenceExamples(t *testing.T) {
	cases := []struct {
		name string
		r    *TopicRouteData
		f    Flavour
		want string
	}{
		{"three replicas default", exampleRoute(), FastjsonDefault, exampleRouteDefault},
		{"three replicas standard", exampleRoute(), Standard, exampleRouteStandard},
		{"all optional standard", exampleFullRoute(), Standard, exampleFullStandard},
		{"all optional default", exampleFullRoute(), FastjsonDefault, exampleFullDefault},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, string(AppendTopicRouteData(nil, c.r, c.f)))
			back, err := DecodeTopicRouteData([]byte(c.want))
			require.NoError(t, err)
			require.Equal(t, c.want, string(AppendTopicRouteData(nil, back, c.f)))
		})
	}
}

func TestReferenceSmallBodies(t *testing.T) {
	ci := &ClusterInfo{
		BrokerAddrTable:  map[string]BrokerData{"broker-a": threeReplicas()},
		ClusterAddrTable: map[string][]string{"DefaultCluster": {"broker-a"}},
	}
	require.Equal(t, exampleClusterInfo, string(AppendClusterInfo(nil, ci)))
	require.Equal(t, `{"topicList":["TopicA"]}`, string(AppendTopicList(nil, &TopicList{TopicList: []string{"TopicA"}})))
	require.Equal(t, `{"brokerAddr":"10.0.0.1:10911","topicList":[]}`,
		string(AppendTopicList(nil, &TopicList{BrokerAddr: "10.0.0.1:10911"})))
	require.Equal(t, `{"table":{"TopicA":"broker-a:4"}}`, string(AppendKVTable(nil, map[string]string{"TopicA": "broker-a:4"})))
	require.Equal(t, `{"table":{}}`, string(AppendKVTable(nil, nil)))
	require.Equal(t, `{"counter":3,"stateVersion":0,"timestamp":1700000000000}`,
		string(AppendDataVersion(nil, &DataVersion{Counter: 3, Timestamp: 1700000000000})))
	g := &BrokerMemberGroup{Cluster: "DefaultCluster", BrokerName: "broker-a", BrokerAddrs: map[int64]string{0: "10.0.0.1:10911"}}
	require.Equal(t, `{"brokerMemberGroup":{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}}`,
		string(AppendBrokerMemberGroup(nil, g)))
	require.Equal(t, `{}`, string(AppendBrokerMemberGroup(nil, nil)))
}

func TestAppendNilAndEmpty(t *testing.T) {
	require.Equal(t, "null", string(AppendTopicRouteData(nil, nil, Standard)))
	require.Equal(t, `{"brokerDatas":[],"filterServerTable":{},"queueDatas":[]}`,
		string(AppendTopicRouteData(nil, &TopicRouteData{}, Standard)))
	r := &TopicRouteData{BrokerDatas: []BrokerData{{BrokerName: "b"}},
		TopicQueueMappingByBroker: map[string]*TopicQueueMappingInfo{"x": nil}}
	require.Equal(t, `{"brokerDatas":[{"brokerAddrs":{},"brokerName":"b","cluster":"","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[],"topicQueueMappingByBroker":{}}`,
		string(AppendTopicRouteData(nil, r, FastjsonDefault)))
	require.Equal(t, "prefix{}", string(AppendBrokerMemberGroup([]byte("prefix"), nil)))
}

func TestStandardSortsMaps(t *testing.T) {
	r := exampleRoute()
	r.FilterServerTable = map[string][]string{"b": {}, "a": {"x"}, "C": {}}
	r.BrokerDatas[0].BrokerAddrs = map[int64]string{16: "p", 0: "q", 1: "r"}
	std := string(AppendTopicRouteData(nil, r, Standard))
	require.Contains(t, std, `"brokerAddrs":{"0":"q","1":"r","16":"p"}`)
	require.Contains(t, std, `"filterServerTable":{"C":[],"a":["x"],"b":[]}`)
	def := string(AppendTopicRouteData(nil, r, FastjsonDefault))
	require.Contains(t, def, `"brokerAddrs":{0:"q",16:"p",1:"r"}`)
}
