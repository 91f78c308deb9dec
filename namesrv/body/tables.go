package body

import (
	"sync"

	"github.com/rmqgo/nameserver/namesrv/route"
)

// maxPooledTable is the largest topic table (in entries) kept for reuse:
// a cleared map keeps its capacity, and clearing costs as much.
const maxPooledTable = 1 << 16

// tablePool recycles the topic tables of decoded register bodies. A
// 2,000-topic table is about 330 kB, as much as the body it was decoded
// from, and a broker sends one every registration.
var tablePool sync.Pool

// newTopicTable returns an empty topic table: a recycled one when there is
// one, else a new one sized for hint entries.
func newTopicTable(hint int) map[string]route.TopicConfig {
	if m, ok := tablePool.Get().(map[string]route.TopicConfig); ok {
		return m
	}
	return make(map[string]route.TopicConfig, hint)
}

// ReleaseRegisterBody hands the topic table of a decoded body back for
// reuse by later decodes and sets rb.TopicConfigs to nil. Call it only
// when nothing refers to the table any more: route.Manager.RegisterBroker
// keeps no reference to it once it returns. Strings and the other parts of
// the body are left alone.
func ReleaseRegisterBody(rb *route.RegisterBody) {
	if rb == nil || rb.TopicConfigs == nil {
		return
	}
	m := rb.TopicConfigs
	rb.TopicConfigs = nil
	if len(m) > maxPooledTable {
		return
	}
	clear(m)
	tablePool.Put(m)
}
