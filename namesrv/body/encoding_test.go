package body

import (
	"github.com/rmqgo/nameserver/internal/javahash"

	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppendStringEscapes(t *testing.T) {
	cases := []struct {
		in, def, std string
	}{
		{"plain", `"plain"`, `"plain"`},
		{`a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"a/b", `"a/b"`, `"a\/b"`},
		{"\b\t\n\f\r", `"\b\t\n\f\r"`, `"\b\t\n\f\r"`},
		{"\x00\x07\x0b\x1f", `"\u0000\u0007\u000B\u001F"`, `"\u0000\u0007\u000B\u001F"`},
		{"\x7f", `"\u007F"`, `"\u007F"`},
		{"é", `"é"`, `"\u00E9"`},
		{"\u0085\u009f\u00a0", `"\u0085\u009F` + "\u00a0" + `"`, `"\u0085\u009F\u00A0"`},
		{"a\u2028b\u2029", `"a\u2028b\u2029"`, `"a\u2028b\u2029"`},
		{"中文", `"中文"`, `"\u4E2D\u6587"`},
		{"😀", `"😀"`, `"\uD83D\uDE00"`},
		{"x\xffy", "\"x\uFFFDy\"", `"x\uFFFDy"`},
		{"<>()'", `"<>()'"`, `"<>()'"`},
	}
	for _, c := range cases {
		require.Equal(t, c.def, string(appendString(nil, c.in, FastjsonDefault)), "default %q", c.in)
		require.Equal(t, c.std, string(appendString(nil, c.in, Standard)), "standard %q", c.in)
	}
}

func TestAppendStringRoundTrip(t *testing.T) {
	for _, in := range []string{"a\"b\\c/d\x01\u2028é😀\x7f", "", "\u0085x"} {
		for _, f := range []Flavour{FastjsonDefault, Standard} {
			s := newScanner(appendString(nil, in, f))
			got, err := s.str()
			require.NoError(t, err)
			require.Equal(t, in, got)
		}
	}
}

func TestAppendLong(t *testing.T) {
	require.Equal(t, `9007199254740991`, string(appendLong(nil, maxSafeLong, Standard)))
	require.Equal(t, `"9007199254740992"`, string(appendLong(nil, maxSafeLong+1, Standard)))
	require.Equal(t, `"-9007199254740992"`, string(appendLong(nil, -maxSafeLong-1, Standard)))
	require.Equal(t, `9007199254740992`, string(appendLong(nil, maxSafeLong+1, FastjsonDefault)))
}

func TestJavaStringHash(t *testing.T) {
	cases := map[string]int32{
		"":      0,
		"hello": 99162322,
		"é":     233,
		"😀":     1772899, // 0xD83D*31 + 0xDE00
	}
	for s, want := range cases {
		require.Equal(t, want, int32(javahash.StringHash(s)), s)
	}
	require.Equal(t, int32(1874216089), int32(javahash.StringHash("DefaultCluster")))
}

func TestJavaLongAndIntHash(t *testing.T) {
	require.Equal(t, uint32(5), javahash.LongHash(5))
	require.Equal(t, uint32(0), javahash.LongHash(-1))
	require.Equal(t, uint32(1), javahash.LongHash(1<<32))
	require.Equal(t, uint32(0xFFFFFFFF), javahash.IntHash(-1))
}

func TestTableKindBuckets(t *testing.T) {
	cases := []struct {
		k    javahash.Kind
		n    int
		want int
	}{
		{javahash.HashMapDefault, 0, 16}, {javahash.HashMapDefault, 12, 16}, {javahash.HashMapDefault, 13, 32},
		{javahash.ConcurrentDefault, 11, 16}, {javahash.ConcurrentDefault, 12, 32},
		{javahash.HashMapCopy, 1, 2}, {javahash.HashMapCopy, 2, 4}, {javahash.HashMapCopy, 3, 8}, {javahash.HashMapCopy, 6, 16},
		{javahash.BrokerAddrTable, 4, 256}, {javahash.BrokerAddrTable, 192, 512},
		{javahash.ClusterAddrTable, 2, 64},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.k.Buckets(c.n), "%+v n=%d", c.k, c.n)
	}
}

func TestSortJavaHashOrder(t *testing.T) {
	keys := []string{"broker-a", "broker-b", "broker-c", "broker-s"}
	javahash.SortStrings(keys, 256, true)
	require.Equal(t, []string{"broker-s", "broker-b", "broker-c", "broker-a"}, keys)
	keys = []string{"broker-a", "broker-s", "broker-b"}
	javahash.SortStrings(keys, 16, false)
	require.Equal(t, []string{"broker-b", "broker-s", "broker-a"}, keys)
}

func TestJavaCompare(t *testing.T) {
	require.Negative(t, javahash.Compare("a", "b"))
	require.Negative(t, javahash.Compare("a", "ab"))
	require.Zero(t, javahash.Compare("same", "same"))
	require.Negative(t, javahash.Compare("B", "a"))
	// UTF-16 order: a supplementary character (surrogates D800..DFFF) sorts
	// before U+FFFD, unlike in UTF-8 byte order.
	require.Negative(t, javahash.Compare("x😀", "x\uFFFD"))
	require.Positive(t, javahash.Compare("é", "e"))
}
