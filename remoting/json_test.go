package remoting

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestJSONHeaderEncoding(t *testing.T) {
	c := &Command{Code: 17, Language: "JAVA", Version: 479, Opaque: 7, Flag: 1,
		Remark: "No topic route info in name server for the topic: T\nSee x"}
	require.Equal(t, `{"code":17,"flag":1,"language":"JAVA","opaque":7,"remark":"No topic route info in name server for the topic: T\nSee x","serializeTypeCurrentRPC":"JSON","version":479}`,
		string(appendJSONHeader(nil, c)))
	c = &Command{Code: -1, Opaque: -2147483648, ExtFields: map[string]string{}}
	require.Equal(t, `{"code":-1,"extFields":{},"flag":0,"opaque":-2147483648,"serializeTypeCurrentRPC":"JSON","version":0}`,
		string(appendJSONHeader(nil, c)))
}

func TestHashMapOrder(t *testing.T) {
	// Orders observed from Java 5.3 (golden responses).
	m := map[string]string{"masterAddr": "", "haServerAddr": ""}
	require.Equal(t, []string{"haServerAddr", "masterAddr"}, extOrder(nil, m))
	m = map[string]string{"brokerName": "", "nextBrokerId": "", "clusterName": ""}
	require.Equal(t, []string{"clusterName", "nextBrokerId", "brokerName"}, extOrder(nil, m))
	require.Equal(t, 16, hashMapCapacity(12))
	require.Equal(t, 32, hashMapCapacity(13))
	require.Equal(t, javaBucket("\U0001F600", 0xFFFFFFFF), uint32(1772899^(1772899>>16)), "31*0xD83D+0xDE00")
}

func decodeJSON(t *testing.T, s string) *Command {
	var c Command
	require.NoError(t, decodeJSONHeader([]byte(s), &c), s)
	return &c
}

func TestJSONHeaderDecodeClientGo(t *testing.T) {
	c := decodeJSON(t, `{"code":105,"language":"GO","version":317,"opaque":1,"flag":0,"remark":"","extFields":{"topic":"T"}}`)
	require.Equal(t, &Command{Code: 105, Language: "GO", Version: 317, Opaque: 1,
		ExtFields: map[string]string{"topic": "T"}}, c)
}

func TestJSONHeaderDecodeLenient(t *testing.T) {
	c := decodeJSON(t, " {\n\"language\" : 9 , \"x\":{\"y\":[1,{\"z\":null},\"]}\"]},\"code\":\"105\",\"extFields\":{\"n\":5,\"b\":true,\"f\":false,\"nul\":null,\"o\":{\"a\":1},\"a\":[1, 2],\"e\":-1.5e3,'q':'s'},\"serializeTypeCurrentRPC\":\"ROCKETMQ\",\"opaque\":2.9} ")
	require.Equal(t, int32(105), c.Code)
	require.Equal(t, "GO", c.Language)
	require.Equal(t, int32(2), c.Opaque)
	require.Equal(t, map[string]string{"n": "5", "b": "true", "f": "false", "o": `{"a":1}`, "a": "[1, 2]", "e": "-1.5e3", "q": "s"}, c.ExtFields)

	c = decodeJSON(t, `{"code":1,"language":99,"remark":null,"extFields":null,"flag":null}`)
	require.Equal(t, &Command{Code: 1}, c)
	c = decodeJSON(t, `{"Code":3,"ext_fields":{"k":"v"},"LANGUAGE":"RUSTY"}`)
	require.Equal(t, &Command{Code: 3, Language: "RUSTY", ExtFields: map[string]string{"k": "v"}}, c)
	c = decodeJSON(t, `{}`)
	require.Equal(t, &Command{}, c)
}

func TestJSONHeaderDecodeEscapes(t *testing.T) {
	c := decodeJSON(t, `{"remark":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\x41\'\v\0","extFields":{"k\u0041":"\u2028"}}`)
	require.Equal(t, "a\"b\\c/d\b\f\n\r\t\u00e9😀\uFFFDxA'\v\x00", c.Remark)
	require.Equal(t, map[string]string{"kA": "\u2028"}, c.ExtFields)
	// round trip through the encoder
	again := decodeJSON(t, string(appendJSONHeader(nil, c)))
	require.Equal(t, c.Remark, again.Remark)
}

func TestJSONHeaderDecodeErrors(t *testing.T) {
	for _, s := range []string{
		``, `[]`, `null`, `{`, `{"code":1`, `{"code":1}x`, `{"code":}`, `{"code":1,}`,
		`{"code":"x"}`, `{"code":4294967296}`, `{"code":true}`, `{"remark":"\q"}`,
		`{"remark":"\u12"}`, `{"remark":"abc}`, `{"extFields":{"k":}}`, `{"extFields":[1]}`,
		`{"extFields":{1:"v"}}`, `{code:1}`, `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		`{"language":"GO"`, `{"x":tru}`, `{"x":{"a" 1}}`,
	} {
		var c Command
		require.ErrorIs(t, decodeJSONHeader([]byte(s), &c), ErrBadHeader, s)
	}
}

// fastjson writes Java strings, so a header is always valid UTF-8: an
// invalid byte is written as U+FFFD, as Java would have decoded it.
func TestJSONHeaderInvalidUTF8(t *testing.T) {
	got := appendJSONHeader(nil, &Command{Code: 1, Remark: "bad\xc2|\xff"})
	require.True(t, utf8.Valid(got), "%q", got)
	require.Contains(t, string(got), "\"remark\":\"bad\uFFFD|\uFFFD\"")
}
