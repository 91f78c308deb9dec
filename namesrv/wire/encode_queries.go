package wire

import (
	"strconv"

	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/internal/javahash"
)

// AppendClusterInfo appends the GET_BROKER_CLUSTER_INFO body, always in the
// fastjson default flavour. Map keys follow the iteration order of the Java
// namesrv's ConcurrentHashMaps; the broker-name lists keep slice order.
func AppendClusterInfo(dst []byte, ci *ClusterInfo) []byte {
	if ci == nil {
		return append(dst, "null"...)
	}
	const f = FastjsonDefault
	dst = append(dst, `{"brokerAddrTable":{`...)
	for i, name := range sortedStringKeys(ci.BrokerAddrTable, f, javahash.BrokerAddrTable) {
		dst = appendComma(dst, i)
		dst = fastjson.AppendString(dst, name, f)
		dst = append(dst, ':')
		bd := ci.BrokerAddrTable[name]
		dst = appendBrokerData(dst, &bd, f, javahash.HashMapDefault)
	}
	dst = append(dst, `},"clusterAddrTable":{`...)
	for i, cluster := range sortedStringKeys(ci.ClusterAddrTable, f, javahash.ClusterAddrTable) {
		dst = appendComma(dst, i)
		dst = fastjson.AppendString(dst, cluster, f)
		dst = append(dst, ':')
		dst = appendStringList(dst, ci.ClusterAddrTable[cluster], f)
	}
	return append(dst, "}}"...)
}

// AppendTopicList appends a TopicList body: brokerAddr only when set, the
// topics in slice order.
func AppendTopicList(dst []byte, tl *TopicList) []byte {
	if tl == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	if tl.BrokerAddr != "" {
		dst = append(dst, `"brokerAddr":`...)
		dst = fastjson.AppendString(dst, tl.BrokerAddr, FastjsonDefault)
		dst = append(dst, ',')
	}
	dst = append(dst, `"topicList":`...)
	dst = appendStringList(dst, tl.TopicList, FastjsonDefault)
	return append(dst, '}')
}

// AppendKVTable appends {"table":{...}} with keys in Java HashMap order.
func AppendKVTable(dst []byte, table map[string]string) []byte {
	const f = FastjsonDefault
	dst = append(dst, `{"table":{`...)
	for i, k := range sortedStringKeys(table, f, javahash.HashMapDefault) {
		dst = appendComma(dst, i)
		dst = fastjson.AppendString(dst, k, f)
		dst = append(dst, ':')
		dst = fastjson.AppendString(dst, table[k], f)
	}
	return append(dst, "}}"...)
}

// AppendDataVersion appends {"counter":..,"stateVersion":..,"timestamp":..},
// without counter when it is null (fastjson leaves out null values).
func AppendDataVersion(dst []byte, dv *DataVersion) []byte {
	if dv == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	if !dv.CounterNull {
		dst = append(dst, `"counter":`...)
		dst = strconv.AppendInt(dst, dv.Counter, 10)
		dst = append(dst, ',')
	}
	dst = append(dst, `"stateVersion":`...)
	dst = strconv.AppendInt(dst, dv.StateVersion, 10)
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, dv.Timestamp, 10)
	return append(dst, '}')
}

// AppendBrokerMemberGroup appends the GET_BROKER_MEMBER_GROUP body
// {"brokerMemberGroup":{...}}, or {} when g is nil.
func AppendBrokerMemberGroup(dst []byte, g *BrokerMemberGroup) []byte {
	if g == nil {
		return append(dst, "{}"...)
	}
	const f = FastjsonDefault
	dst = append(dst, `{"brokerMemberGroup":{"brokerAddrs":`...)
	dst = appendBrokerAddrs(dst, g.BrokerAddrs, g.AddrOrder, f, javahash.HashMapCopy)
	dst = appendOptField(dst, `,"brokerName":`, g.BrokerName)
	dst = appendOptField(dst, `,"cluster":`, g.Cluster)
	return append(dst, "}}"...)
}

// appendOptField appends `name value` (name starts with the comma) unless
// value is empty (a Java null).
func appendOptField(dst []byte, name, value string) []byte {
	if value == "" {
		return dst
	}
	dst = append(dst, name...)
	return fastjson.AppendString(dst, value, FastjsonDefault)
}
