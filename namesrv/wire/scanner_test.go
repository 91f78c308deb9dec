package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodeLenientForms(t *testing.T) {
	body := ` { 'brokerDatas' : [ {brokerAddrs:{0:"a", "1":'b', -1:"c",},"brokerName":"n\x41\u00e9\uD83D\uDE00","cluster":1,` +
		`"enableActingMaster":"true","unknown":{"x":[1,{"y":null}]},},null],"queueDatas":[{"brokerName":"n","perm":"6",` +
		`"readQueueNums":4.0,"topicSynFlag":1,"writeQueueNums":null}],"orderTopicConf":null} `
	r, err := DecodeTopicRouteData([]byte(body))
	require.NoError(t, err)
	require.Len(t, r.BrokerDatas, 1)
	b := r.BrokerDatas[0]
	require.Equal(t, map[int64]string{0: "a", 1: "b", -1: "c"}, b.BrokerAddrs)
	require.Equal(t, "nAé😀", b.BrokerName)
	require.Equal(t, "1", b.Cluster)
	require.True(t, b.EnableActingMaster)
	require.Equal(t, int32(6), r.QueueDatas[0].Perm)
	require.Equal(t, int32(4), r.QueueDatas[0].ReadQueueNums)
	require.Equal(t, int32(1), r.QueueDatas[0].TopicSysFlag)
	require.Zero(t, r.QueueDatas[0].WriteQueueNums)
	require.Nil(t, r.FilterServerTable)
}

func TestDecodeEscapes(t *testing.T) {
	s := newScanner([]byte(`"\"\\\/\b\f\n\r\t\v\'\x41\u0041\uD83D\uDE00\uD800x\0"`))
	got, err := s.str()
	require.NoError(t, err)
	require.Equal(t, "\"\\/\b\f\n\r\t\v'AA😀\uFFFDx\x00", got)
	for _, bad := range []string{`"\q"`, `"\u12"`, `"\x4"`, `"abc`, `"\`} {
		_, err := newScanner([]byte(bad)).str()
		require.ErrorIs(t, err, ErrSyntax, bad)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := map[string]error{
		``:                                     ErrNullBody,
		`  `:                                   ErrNullBody,
		`null`:                                 ErrNullBody,
		`[]`:                                   ErrType,
		`{"queueDatas":{}}`:                    ErrType,
		`{"queueDatas":[{"perm":"x"}]}`:        ErrNumber,
		`{"queueDatas":[{"perm":3000000000}]}`: ErrNumber,
		`{"brokerDatas":[{"brokerAddrs":{x:"a"}}]}`: ErrNumber,
		`{"a":1} x`:             ErrSyntax,
		`{"a":1`:                ErrSyntax,
		`{"a" 1}`:               ErrSyntax,
		`{"a":1 "b":2}`:         ErrSyntax,
		`{,}`:                   ErrSyntax,
		`{"a":}`:                ErrSyntax,
		`{"a":1,,}`:             ErrSyntax,
		`{"orderTopicConf":{}}`: ErrType,
	}
	for in, want := range cases {
		_, err := DecodeTopicRouteData([]byte(in))
		require.ErrorIs(t, err, want, in)
	}
}

func TestDecodeDepthLimit(t *testing.T) {
	deep := `{"x":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`
	_, err := DecodeTopicRouteData([]byte(deep))
	require.ErrorIs(t, err, ErrTooDeep)
	ok := `{"x":` + strings.Repeat("[", maxDepth-2) + strings.Repeat("]", maxDepth-2) + `}`
	_, err = DecodeTopicRouteData([]byte(ok))
	require.NoError(t, err)
}

func TestParseLong(t *testing.T) {
	good := map[string]int64{"0": 0, "-5": -5, "+7": 7, "9223372036854775807": 1<<63 - 1,
		"-9223372036854775808": -1 << 63, "1e3": 1000, "-2.9": -2}
	for in, want := range good {
		v, ok := parseLong([]byte(in))
		require.True(t, ok, in)
		require.Equal(t, want, v, in)
	}
	for _, in := range []string{"", "-", "9223372036854775808", "1e30", "NaN", "0x10", "1_0"} {
		_, ok := parseLong([]byte(in))
		require.False(t, ok, in)
	}
}

func TestDecodeSmallBodies(t *testing.T) {
	dv, err := DecodeDataVersion([]byte(`{"counter":"3","stateVersion":null,"timestamp":17,"x":[]}`))
	require.NoError(t, err)
	require.Equal(t, int64(3), dv.Counter)
	require.Equal(t, int64(17), dv.Timestamp)
	kv, err := DecodeKVTable([]byte(`{"table":{"a":"b","n":1,"z":null}}`))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "b", "n": "1"}, kv)
	kv, err = DecodeKVTable([]byte(`{}`))
	require.NoError(t, err)
	require.NotNil(t, kv)
	_, err = DecodeBrokerMemberGroup([]byte(`{"brokerMemberGroup":null}`))
	require.ErrorIs(t, err, ErrNullBody)
	tl, err := DecodeTopicList([]byte(`{"topicList":["a",null,"b"]}`))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, tl.TopicList)
}
