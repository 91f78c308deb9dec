package admin

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuoteNumericKeys(t *testing.T) {
	cases := map[string]string{
		`{1:"a",2:"b"}`:                    `{"1":"a","2":"b"}`,
		`{"x":{ -3 :"a"},"l":[1,2,{4:5}]}`: `{"x":{ "-3" :"a"},"l":[1,2,{"4":5}]}`,
		`{"s":"{1:2}","n":1}`:              `{"s":"{1:2}","n":1}`,
		`{"e":"a\"{1:2","k":{7:"v"}}`:      `{"e":"a\"{1:2","k":{"7":"v"}}`,
		`[1,{2:3},4]`:                      `[1,{"2":3},4]`,
		``:                                 ``,
	}
	for in, want := range cases {
		require.Equal(t, want, string(QuoteNumericKeys([]byte(in))), in)
	}
}

func TestDecodeElectBodyWithUnquotedKeys(t *testing.T) {
	var b struct {
		BrokerMemberGroup struct {
			BrokerAddrs map[int64]string `json:"brokerAddrs"`
		} `json:"brokerMemberGroup"`
	}
	body := `{"brokerMemberGroup":{"brokerAddrs":{1:"127.0.0.1:30911",2:"127.0.0.1:30912"},"brokerName":"broker-a"},"syncStateSet":[1]}`
	require.NoError(t, decodeLenient("x", "body", []byte(body), &b))
	require.Equal(t, map[int64]string{1: "127.0.0.1:30911", 2: "127.0.0.1:30912"}, b.BrokerMemberGroup.BrokerAddrs)
	var v any
	require.Error(t, decodeLenient("x", "body", []byte(`{1:`), &v))
	require.NoError(t, json.Unmarshal(QuoteNumericKeys([]byte(`{"a":-1.5e3}`)), &v))
}

func FuzzQuoteNumericKeys(f *testing.F) {
	f.Add([]byte(`{1:"a","b":[1,{2:3}]}`))
	f.Add([]byte(`{"s":"\\\"{1:2}"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := QuoteNumericKeys(b)
		if json.Valid(b) {
			require.True(t, json.Valid(out), "%q -> %q", b, out)
		}
	})
}

func TestParseProperties(t *testing.T) {
	got := ParseProperties([]byte("# comment\n\nb=2\r\na = x=y\n! bang\nc:3\nflag\n"))
	require.Equal(t, []Property{{"b", "2"}, {"a", "x=y"}, {"c", "3"}, {"flag", ""}}, got)
}

func TestFormatPropertiesEscapes(t *testing.T) {
	b := FormatProperties([]Property{{"k", "v"}, {"a b=c", " lead\\tail\n"}})
	require.Equal(t, "k=v\na\\ b\\=c=\\ lead\\\\tail\\n\n", string(b))
}
