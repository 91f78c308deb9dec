package wire

import (
	"strconv"

	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/internal/javahash"
)

// AppendTopicRouteData appends the GET_ROUTEINFO_BY_TOPIC body of r in
// flavour f. brokerDatas, filterServerTable and queueDatas are always
// written; orderTopicConf, topicQueueMappingByBroker and zoneName only when
// set. Array order is the slice order.
func AppendTopicRouteData(dst []byte, r *TopicRouteData, f Flavour) []byte {
	if r == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"brokerDatas":[`...)
	for i := range r.BrokerDatas {
		dst = appendComma(dst, i)
		dst = appendBrokerData(dst, &r.BrokerDatas[i], f, javahash.HashMapCopy)
	}
	dst = append(dst, `],"filterServerTable":`...)
	dst = appendFilterServerTable(dst, r.FilterServerTable, f)
	if r.OrderTopicConf != "" {
		dst = append(dst, `,"orderTopicConf":`...)
		dst = fastjson.AppendString(dst, r.OrderTopicConf, f)
	}
	dst = append(dst, `,"queueDatas":[`...)
	for i := range r.QueueDatas {
		dst = appendComma(dst, i)
		dst = appendQueueData(dst, &r.QueueDatas[i], f)
	}
	dst = append(dst, ']')
	if r.TopicQueueMappingByBroker != nil {
		dst = append(dst, `,"topicQueueMappingByBroker":`...)
		dst = appendMappingTable(dst, r.TopicQueueMappingByBroker, f)
	}
	return append(dst, '}')
}

// appendComma appends the separator before element i of a list.
func appendComma(dst []byte, i int) []byte {
	if i > 0 {
		return append(dst, ',')
	}
	return dst
}

// appendBrokerData appends one BrokerData bean; k is the Java map kind of
// its brokerAddrs (a copy in routes, the live map in cluster info).
func appendBrokerData(dst []byte, b *BrokerData, f Flavour, k javahash.Kind) []byte {
	dst = append(dst, `{"brokerAddrs":`...)
	dst = appendBrokerAddrs(dst, b.BrokerAddrs, b.AddrOrder, f, k)
	dst = append(dst, `,"brokerName":`...)
	dst = fastjson.AppendString(dst, b.BrokerName, f)
	dst = append(dst, `,"cluster":`...)
	dst = fastjson.AppendString(dst, b.Cluster, f)
	dst = append(dst, `,"enableActingMaster":`...)
	dst = appendBool(dst, b.EnableActingMaster)
	if b.ZoneName != "" {
		dst = append(dst, `,"zoneName":`...)
		dst = fastjson.AppendString(dst, b.ZoneName, f)
	}
	return append(dst, '}')
}

// appendBrokerAddrs appends a brokerId -> address map ({} when nil).
// order is the iteration order of the Java map m was read from (nil:
// unknown); a map of kind HashMapCopy is a copy of it.
func appendBrokerAddrs(dst []byte, m map[int64]string, order []int64, f Flavour, k javahash.Kind) []byte {
	var buf [8]int64
	ids := order
	switch {
	case f == Standard || len(order) != len(m):
		ids = sortedLongKeys(m, f, k, buf[:])
	case k.Presized:
		ids = CopyOrder(order)
	}
	dst = append(dst, '{')
	for i, id := range ids {
		dst = appendComma(dst, i)
		dst = fastjson.AppendNumberKey(dst, id, f)
		dst = fastjson.AppendString(dst, m[id], f)
	}
	return append(dst, '}')
}

// appendQueueData appends one QueueData bean.
func appendQueueData(dst []byte, q *QueueData, f Flavour) []byte {
	dst = append(dst, `{"brokerName":`...)
	dst = fastjson.AppendString(dst, q.BrokerName, f)
	dst = append(dst, `,"perm":`...)
	dst = strconv.AppendInt(dst, int64(q.Perm), 10)
	dst = append(dst, `,"readQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(q.ReadQueueNums), 10)
	dst = append(dst, `,"topicSysFlag":`...)
	dst = strconv.AppendInt(dst, int64(q.TopicSysFlag), 10)
	dst = append(dst, `,"writeQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(q.WriteQueueNums), 10)
	return append(dst, '}')
}

// appendFilterServerTable appends brokerAddr -> filter servers; nil lists
// are null values, which fastjson leaves out.
func appendFilterServerTable(dst []byte, m map[string][]string, f Flavour) []byte {
	return appendNonNilMap(dst, m, f, func(v []string) bool { return v == nil }, appendStringList)
}

// appendNonNilMap appends a String-keyed Java HashMap in the flavour's key
// order, leaving out null values as fastjson does.
func appendNonNilMap[V any](dst []byte, m map[string]V, f Flavour, isNil func(V) bool,
	appendValue func([]byte, V, Flavour) []byte) []byte {
	dst = append(dst, '{')
	n := 0
	for _, k := range sortedStringKeys(m, f, javahash.HashMapDefault) {
		if isNil(m[k]) {
			continue
		}
		dst = appendComma(dst, n)
		n++
		dst = fastjson.AppendString(dst, k, f)
		dst = append(dst, ':')
		dst = appendValue(dst, m[k], f)
	}
	return append(dst, '}')
}

// appendStringList appends a JSON array of strings.
func appendStringList(dst []byte, list []string, f Flavour) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		dst = appendComma(dst, i)
		dst = fastjson.AppendString(dst, s, f)
	}
	return append(dst, ']')
}

// appendMappingTable appends brokerName -> TopicQueueMappingInfo, leaving
// out nil values.
func appendMappingTable(dst []byte, m map[string]*TopicQueueMappingInfo, f Flavour) []byte {
	isNil := func(v *TopicQueueMappingInfo) bool { return v == nil }
	return appendNonNilMap(dst, m, f, isNil, appendMappingInfo)
}

// appendMappingInfo appends one TopicQueueMappingInfo bean; a nil
// CurrIDMap and a null scope (Java nulls) are left out.
func appendMappingInfo(dst []byte, m *TopicQueueMappingInfo, f Flavour) []byte {
	dst = append(dst, `{"bname":`...)
	dst = fastjson.AppendString(dst, m.Bname, f)
	if m.CurrIDMap != nil {
		dst = append(dst, `,"currIdMap":`...)
		dst = appendCurrIDMap(dst, m.CurrIDMap, f)
	}
	dst = append(dst, `,"dirty":`...)
	dst = appendBool(dst, m.Dirty)
	dst = append(dst, `,"epoch":`...)
	dst = fastjson.AppendLong(dst, m.Epoch, f)
	if !m.ScopeNull {
		dst = append(dst, `,"scope":`...)
		dst = fastjson.AppendString(dst, m.Scope, f)
	}
	dst = append(dst, `,"topic":`...)
	dst = fastjson.AppendString(dst, m.Topic, f)
	dst = append(dst, `,"totalQueues":`...)
	dst = strconv.AppendInt(dst, int64(m.TotalQueues), 10)
	return append(dst, '}')
}

// appendCurrIDMap appends the Integer -> Integer map of a mapping info.
func appendCurrIDMap(dst []byte, m map[int32]int32, f Flavour) []byte {
	var buf [16]int32
	dst = append(dst, '{')
	for i, k := range sortedIntKeys(m, f, javahash.ConcurrentDefault, buf[:]) {
		dst = appendComma(dst, i)
		dst = fastjson.AppendNumberKey(dst, int64(k), f)
		dst = strconv.AppendInt(dst, int64(m[k]), 10)
	}
	return append(dst, '}')
}
