package namesrv

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Topics of a user's report, created on the broker in this order: a
// Java broker's topicConfigTable (new ConcurrentHashMap<>(1024)) lists
// them in its own hash order, which is the registration body's order.
// Topic_071 and T004 share a bucket of every table up to 4,096 buckets,
// and so do jb1 and Topic_037 up to 2,048; in both pairs the body lists
// them against name order.
func issue18Topics() []string {
	names := []string{"jb1"}
	for i := range 100 {
		names = append(names, fmt.Sprintf("Topic_%03d", i))
	}
	for i := 1; i < 10; i++ {
		names = append(names, fmt.Sprintf("T%03d", i))
	}
	return javahash.InsertionOrder(names, javahash.Kind{Initial: 2048, Concurrent: true}, javahash.StringHash)
}

// javaAllTopics is Java's getAllTopicList after a broker whose body lists
// bodyOrder registered with an empty NameServer: the decoder puts the
// topics into a new ConcurrentHashMap<>() (tcTable), registerBroker adds
// them to topicQueueTable (ConcurrentHashMap<>(1024): 2,048 buckets) in
// tcTable's order, and the TopicList's key set (ConcurrentHashMap.newKeySet)
// receives topicQueueTable's keys in that table's order.
func javaAllTopics(bodyOrder []string) []string {
	tcTable := javahash.InsertionOrder(bodyOrder, javahash.ConcurrentDefault, javahash.StringHash)
	tq := javahash.InsertionOrder(tcTable, javahash.Kind{Initial: 2048, Concurrent: true}, javahash.StringHash)
	return javahash.InsertionOrder(tq, javahash.ConcurrentDefault, javahash.StringHash)
}

// TestTopicListOrderOfOneShotRegistration registers every topic of a
// broker at once (a NameServer restart) with a JSON body and with a
// compressed one, then checks GET_ALL_TOPIC_LIST_FROM_NAMESERVER and
// GET_TOPICS_BY_CLUSTER element by element against Java's order, and the
// two orders Java 5.3.3 printed in the report.
func TestTopicListOrderOfOneShotRegistration(t *testing.T) {
	order := issue18Topics()
	want := javaAllTopics(order)
	require.Less(t, slices.Index(want, "Topic_071"), slices.Index(want, "T004"))
	require.Less(t, slices.Index(want, "jb1"), slices.Index(want, "Topic_037"))
	for _, compressed := range []bool{false, true} {
		t.Run(fmt.Sprintf("compressed=%v", compressed), func(t *testing.T) {
			srv := startServer(t, nil)
			conn := dialRaw(t, srv)
			frame := registerFrame(0, "10.8.0.1:10911", orderedRegisterBody(t, order, compressed))
			if compressed {
				frame = bytes.Replace(frame, []byte(`"compressed":"false"`), []byte(`"compressed":"true" `), 1)
			}
			require.Equal(t, int32(remoting.Success), readReplyTo(t, conn, frame).Code)
			srv.Routes().WaitIdle()
			c := dial(t, srv)
			all := topicListOf(t, invoke(t, c, remoting.NewRequest(remoting.GetAllTopicListFromNameserver, nil, nil)))
			require.Equal(t, want, all)
			require.Equal(t, []string{"Topic_070", "Topic_071", "T004"}, keepOnly(all, "Topic_070", "Topic_071", "T004"))
			require.Equal(t, []string{"jb1", "Topic_037"}, keepOnly(all, "jb1", "Topic_037"))
			byCluster := topicListOf(t, invoke(t, c, remoting.NewRequest(remoting.GetTopicsByCluster,
				map[string]string{"cluster": "UCluster"}, nil)))
			require.Equal(t, want, byCluster)
		})
	}
}

// orderedRegisterBody is a Java broker's RegisterBrokerBody listing the
// topics in the given order: fastjson's JSON, or the zlib stream of
// RegisterBrokerBody.encode(true).
func orderedRegisterBody(t *testing.T, names []string, compressed bool) []byte {
	if compressed {
		return compressedRegisterBody(t, names)
	}
	var b strings.Builder
	b.WriteString(`{"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":1,` +
		`"stateVersion":0,"timestamp":1700000000000},"topicConfigTable":{`)
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s":{"attributes":{},"order":false,"perm":6,"readQueueNums":8,`+
			`"topicFilterType":"SINGLE_TAG","topicName":"%s","topicSysFlag":0,"writeQueueNums":8}`, n, n)
	}
	b.WriteString(`},"topicQueueMappingInfoMap":{}}}`)
	return []byte(b.String())
}

// compressedRegisterBody is RegisterBrokerBody.encode(true) of the topics.
func compressedRegisterBody(t *testing.T, names []string) []byte {
	var raw []byte
	str := func(s string) { raw = append(binary.BigEndian.AppendUint32(raw, uint32(len(s))), s...) }
	str(`{"counter":1,"stateVersion":0,"timestamp":1700000000000}`)
	raw = binary.BigEndian.AppendUint32(raw, uint32(len(names)))
	for _, n := range names {
		str(n + " 8 8 6 SINGLE_TAG")
	}
	str("[]")
	raw = binary.BigEndian.AppendUint32(raw, 0)
	var out bytes.Buffer
	w := zlib.NewWriter(&out)
	_, err := w.Write(raw)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return out.Bytes()
}

// topicListOf decodes the TopicList body of a successful reply.
func topicListOf(t *testing.T, resp *remoting.Command) []string {
	require.Equal(t, int32(remoting.Success), resp.Code, resp.Remark)
	tl, err := wire.DecodeTopicList(resp.Body)
	require.NoError(t, err)
	return tl.TopicList
}

// keepOnly keeps the elements of list that are in keep, in list's order.
func keepOnly(list []string, keep ...string) []string {
	var out []string
	for _, s := range list {
		if slices.Contains(keep, s) {
			out = append(out, s)
		}
	}
	return out
}
