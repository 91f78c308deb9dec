package javahash

import (
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
)

func TestJavaStringHash(t *testing.T) {
	cases := map[string]int32{
		"":      0,
		"hello": 99162322,
		"é":     233,
		"😀":     1772899, // 0xD83D*31 + 0xDE00
	}
	for s, want := range cases {
		require.Equal(t, want, int32(StringHash(s)), s)
	}
	require.Equal(t, int32(1874216089), int32(StringHash("DefaultCluster")))
}

// StringHash's four-byte steps agree with hashing one UTF-16 unit at a
// time, for every length around the step and with non-ASCII at any place.
func TestStringHashStepsAgree(t *testing.T) {
	oneByOne := func(s string) uint32 {
		var h uint32
		for _, u := range utf16.Encode([]rune(s)) {
			h = 31*h + uint32(u)
		}
		return h
	}
	base := "Topic_%RETRY%group-0123456789"
	for n := range len(base) + 1 {
		require.Equal(t, oneByOne(base[:n]), StringHash(base[:n]), base[:n])
		for at := 0; at <= n; at++ {
			s := base[:at] + "é😀" + base[at:n]
			require.Equal(t, oneByOne(s), StringHash(s), s)
		}
	}
}

func TestJavaLongAndIntHash(t *testing.T) {
	require.Equal(t, uint32(5), LongHash(5))
	require.Equal(t, uint32(0), LongHash(-1))
	require.Equal(t, uint32(1), LongHash(1<<32))
	require.Equal(t, uint32(0xFFFFFFFF), IntHash(-1))
}

func TestTableKindBuckets(t *testing.T) {
	cases := []struct {
		k    Kind
		n    int
		want int
	}{
		{HashMapDefault, 0, 16}, {HashMapDefault, 12, 16}, {HashMapDefault, 13, 32},
		{ConcurrentDefault, 11, 16}, {ConcurrentDefault, 12, 32},
		{HashMapCopy, 1, 2}, {HashMapCopy, 2, 4}, {HashMapCopy, 3, 8}, {HashMapCopy, 6, 16},
		{BrokerAddrTable, 4, 256}, {BrokerAddrTable, 192, 512},
		{ClusterAddrTable, 2, 64},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.k.Buckets(c.n), "%+v n=%d", c.k, c.n)
	}
}

func TestSortJavaHashOrder(t *testing.T) {
	keys := []string{"broker-a", "broker-b", "broker-c", "broker-s"}
	SortStrings(keys, 256, true)
	require.Equal(t, []string{"broker-s", "broker-b", "broker-c", "broker-a"}, keys)
	keys = []string{"broker-a", "broker-s", "broker-b"}
	SortStrings(keys, 16, false)
	require.Equal(t, []string{"broker-b", "broker-s", "broker-a"}, keys)
}

func TestJavaCompare(t *testing.T) {
	require.Negative(t, Compare("a", "b"))
	require.Negative(t, Compare("a", "ab"))
	require.Zero(t, Compare("same", "same"))
	require.Negative(t, Compare("B", "a"))
	// UTF-16 order: a supplementary character (surrogates D800..DFFF) sorts
	// before U+FFFD, unlike in UTF-8 byte order.
	require.Negative(t, Compare("x😀", "x\uFFFD"))
	require.Positive(t, Compare("é", "e"))
}
