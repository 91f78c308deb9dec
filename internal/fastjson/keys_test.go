package fastjson

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuoteNumericKeys(t *testing.T) {
	cases := map[string]string{
		`{1:"a"}`:                          `{"1":"a"}`,
		`{ 12 : [1,2], "k":{3:{4:5}}}`:     `{ "12" : [1,2], "k":{"3":{"4":5}}}`,
		`["{1:2}", {"s":"x\"{1:"}]`:        `["{1:2}", {"s":"x\"{1:"}]`,
		`[1,{2:3},4]`:                      `[1,{"2":3},4]`,
		`{"a":1,-7:2}`:                     `{"a":1,"-7":2}`,
		`{1:"a",2:"b"}`:                    `{"1":"a","2":"b"}`,
		`{"x":{ -3 :"a"},"l":[1,2,{4:5}]}`: `{"x":{ "-3" :"a"},"l":[1,2,{"4":5}]}`,
		`{"s":"{1:2}","n":1}`:              `{"s":"{1:2}","n":1}`,
		`{"e":"a\"{1:2","k":{7:"v"}}`:      `{"e":"a\"{1:2","k":{"7":"v"}}`,
		``:                                 ``,
	}
	for in, want := range cases {
		require.Equal(t, want, string(QuoteNumericKeys([]byte(in))), in)
	}
}

func TestPretty(t *testing.T) {
	in := `{"a":[],"b":{},"c":{0:"x,{y}",1:"q\"]"},"d":[1,2]}`
	want := "{\n\t\"a\":[],\n\t\"b\":{},\n\t\"c\":{\n\t\t0:\"x,{y}\",\n\t\t1:\"q\\\"]\"\n\t},\n\t\"d\":[\n\t\t1,\n\t\t2\n\t]\n}"
	require.Equal(t, want, string(Pretty([]byte(in))))
}
