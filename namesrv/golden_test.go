package namesrv

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/internal/goldenfile"
	"github.com/rmqgo/nameserver/remoting"
)

// TestGoldenReplay sends every request that the Java NameServer 5.3 received,
// byte for byte and on the connection it came over, and compares the replies
// (codes, remarks, header fields, bodies; hash-ordered lists as sets).
func TestGoldenReplay(t *testing.T) {
	replayGolden(t, startServer(t, func(c *config.NamesrvConfig) {}),
		func(addr string) (net.Conn, error) { return net.Dial("tcp", addr) })
}

// replayGolden replays the golden exchanges against srv over connections
// opened by dial.
func replayGolden(t *testing.T, srv *Server, dial func(addr string) (net.Conn, error)) {
	exchanges := goldenfile.Load(t, goldenfile.Namesrv)
	conns := map[string]net.Conn{}
	for i, ex := range exchanges {
		srv.Routes().WaitIdle()
		conn := conns[ex.Connection]
		if conn == nil {
			var err error
			conn, err = dial(srv.Addr().String())
			require.NoError(t, err)
			defer conn.Close()
			conns[ex.Connection] = conn
		}
		reqFrame := mustHex(t, ex.RequestHex)
		got := roundTrip(t, conn, reqFrame)
		want := mustHex(t, ex.ResponseHex)
		compareFrames(t, i, ex.Case+" ("+javaClassOf(t, reqFrame)+")", want, got)
		compareTopicListOrder(t, i, ex.Case, want, got)
	}
}

// compareTopicListOrder checks a TopicList body element by element: its
// order is Java's (topicQueueTable's order inside a bucket), not a set's.
func compareTopicListOrder(t *testing.T, i int, name string, want, got []byte) {
	t.Helper()
	w, err := remoting.DecodeFrame(want[4:])
	require.NoError(t, err)
	if !strings.Contains(string(w.Body), `"topicList":[`) {
		return
	}
	g, err := remoting.DecodeFrame(got[4:])
	require.NoError(t, err)
	assert.Equal(t, string(w.Body), string(g.Body), "topic list order of %d %s", i, name)
}

func mustHex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// roundTrip writes one raw frame and reads one raw frame back.
func roundTrip(t *testing.T, conn net.Conn, frame []byte) []byte {
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err := conn.Write(frame)
	require.NoError(t, err)
	var lenBuf [4]byte
	rest := roundTripRead(t, conn, lenBuf[:])
	return append(lenBuf[:], rest...)
}

// roundTripRead reads one frame: its length into lenBuf, the rest returned.
func roundTripRead(t *testing.T, conn net.Conn, lenBuf []byte) []byte {
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err := io.ReadFull(conn, lenBuf)
	require.NoError(t, err)
	rest := make([]byte, binary.BigEndian.Uint32(lenBuf))
	_, err = io.ReadFull(conn, rest)
	require.NoError(t, err)
	return rest
}

func compareFrames(t *testing.T, i int, name string, want, got []byte) {
	t.Helper()
	if string(want) == string(got) {
		return
	}
	w, err := remoting.DecodeFrame(want[4:])
	require.NoError(t, err, "golden %d %s", i, name)
	g, err := remoting.DecodeFrame(got[4:])
	require.NoError(t, err, "reply %d %s", i, name)
	assert.Equal(t, w.Code, g.Code, "code of %d %s: remark %q", i, name, g.Remark)
	assert.Equal(t, w.Remark, g.Remark, "remark of %d %s", i, name)
	assert.Equal(t, w.Flag, g.Flag, "flag of %d %s", i, name)
	assert.Equal(t, w.Opaque, g.Opaque, "opaque of %d %s", i, name)
	assert.Equal(t, w.Version, g.Version, "version of %d %s", i, name)
	assert.Equal(t, w.ExtFields, g.ExtFields, "extFields of %d %s", i, name)
	assert.Equal(t, unquotedKeys(w.Body), unquotedKeys(g.Body), "body flavour of %d %s:\n%s\n%s", i, name, w.Body, g.Body)
	assert.Equal(t, canonicalJSON(t, w.Body), canonicalJSON(t, g.Body), "body of %d %s", i, name)
}

var unquotedKey = regexp.MustCompile(`([{,])(-?\d+):`)

// unquotedKeys counts fastjson's unquoted numeric map keys: the flavour mark.
func unquotedKeys(b []byte) int {
	return len(unquotedKey.FindAll(b, -1))
}

// canonicalJSON quotes numeric keys, then re-encodes with sorted object keys
// and every array sorted by its elements' encoding, so that Java's hash
// order does not matter.
func canonicalJSON(t *testing.T, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	var v any
	quoted := fastjson.QuoteNumericKeys(b)
	if err := json.Unmarshal(quoted, &v); err != nil {
		return string(b) // properties text and other non-JSON bodies compare as text
	}
	out, err := json.Marshal(sortArrays(v))
	require.NoError(t, err)
	return string(out)
}

func sortArrays(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = sortArrays(e)
		}
	case []any:
		keys := make([]string, len(x))
		for i, e := range x {
			x[i] = sortArrays(e)
			b, _ := json.Marshal(x[i])
			keys[i] = string(b)
		}
		sort.Sort(byKey{x, keys})
	}
	return v
}

type byKey struct {
	v    []any
	keys []string
}

func (b byKey) Len() int           { return len(b.v) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.v[i], b.v[j] = b.v[j], b.v[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}

// javaHeaderClass names the Java class whose fields a request's extFields
// carry (package org.apache.rocketmq.remoting.protocol.header[.namesrv]),
// so that a failing exchange says which Java type it came from.
var javaHeaderClass = map[int32]string{
	remoting.PutKVConfig:                   "PutKVConfigRequestHeader",
	remoting.GetKVConfig:                   "GetKVConfigRequestHeader",
	remoting.DeleteKVConfig:                "DeleteKVConfigRequestHeader",
	remoting.RegisterBroker:                "RegisterBrokerRequestHeader + RegisterBrokerBody",
	remoting.UnregisterBroker:              "UnRegisterBrokerRequestHeader",
	remoting.GetRouteinfoByTopic:           "GetRouteInfoRequestHeader",
	remoting.GetBrokerClusterInfo:          "no header",
	remoting.WipeWritePermOfBroker:         "WipeWritePermOfBrokerRequestHeader",
	remoting.GetAllTopicListFromNameserver: "no header",
	remoting.DeleteTopicInNamesrv:          "DeleteTopicFromNamesrvRequestHeader",
	remoting.RegisterTopicInNamesrv:        "RegisterTopicRequestHeader + TopicRouteData",
	remoting.GetKVListByNamespace:          "GetKVListByNamespaceRequestHeader",
	remoting.GetTopicsByCluster:            "GetTopicsByClusterRequestHeader",
	remoting.GetSystemTopicListFromNs:      "no header",
	remoting.GetUnitTopicList:              "no header",
	remoting.GetHasUnitSubTopicList:        "no header",
	remoting.GetHasUnitSubUnunitTopicList:  "no header",
	remoting.UpdateNamesrvConfig:           "java.util.Properties body",
	remoting.GetNamesrvConfig:              "no header",
	remoting.QueryDataVersion:              "QueryDataVersionRequestHeader + DataVersion",
	remoting.AddWritePermOfBroker:          "AddWritePermOfBrokerRequestHeader",
	remoting.GetBrokerMemberGroup:          "GetBrokerMemberGroupRequestHeader",
	remoting.BrokerHeartbeat:               "BrokerHeartbeatRequestHeader",
}

func javaClassOf(t *testing.T, frame []byte) string {
	req, err := remoting.DecodeFrame(frame[4:])
	require.NoError(t, err)
	if c, ok := javaHeaderClass[req.Code]; ok {
		return c
	}
	return fmt.Sprintf("code %d: no Java processor", req.Code)
}
