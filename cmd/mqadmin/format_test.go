package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrettyFastjson(t *testing.T) {
	in := `{"a":[],"b":{},"c":{0:"x,{y}",1:"q\"]"},"d":[1,2]}`
	want := "{\n\t\"a\":[],\n\t\"b\":{},\n\t\"c\":{\n\t\t0:\"x,{y}\",\n\t\t1:\"q\\\"]\"\n\t},\n\t\"d\":[\n\t\t1,\n\t\t2\n\t]\n}"
	require.Equal(t, want, string(prettyFastjson([]byte(in))))
}

func TestJavaFormatting(t *testing.T) {
	require.Equal(t, "{0=a, 1=b}", javaLongMap(map[int64]string{1: "b", 0: "a"}))
	require.Equal(t, "[x, y]", javaList([]string{"x", "y"}))
	require.Equal(t, "abc", frontStringAtLeast("abcdef", 3))
	require.Equal(t, "ab", frontStringAtLeast("ab", 3))
	require.InDelta(t, 12.5, firstFloat("12.5 11.0 10.0"), 1e-9)
}
