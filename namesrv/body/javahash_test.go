package body

import (
	"testing"

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
		require.Equal(t, want, int32(javaStringHash(s)), s)
	}
	require.Equal(t, int32(1874216089), int32(javaStringHash("DefaultCluster")))
}

func TestJavaLongAndIntHash(t *testing.T) {
	require.Equal(t, uint32(5), javaLongHash(5))
	require.Equal(t, uint32(0), javaLongHash(-1))
	require.Equal(t, uint32(1), javaLongHash(1<<32))
	require.Equal(t, uint32(0xFFFFFFFF), javaIntHash(-1))
}

func TestTableKindBuckets(t *testing.T) {
	cases := []struct {
		k    tableKind
		n    int
		want int
	}{
		{hashMapDefault, 0, 16}, {hashMapDefault, 12, 16}, {hashMapDefault, 13, 32},
		{concurrentDefault, 11, 16}, {concurrentDefault, 12, 32},
		{hashMapCopy, 1, 2}, {hashMapCopy, 2, 4}, {hashMapCopy, 3, 8}, {hashMapCopy, 6, 16},
		{brokerAddrTableKind, 4, 256}, {brokerAddrTableKind, 192, 512},
		{clusterAddrTableKind, 2, 64},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.k.buckets(c.n), "%+v n=%d", c.k, c.n)
	}
}

func TestSortJavaHashOrder(t *testing.T) {
	keys := []string{"broker-a", "broker-b", "broker-c", "broker-s"}
	SortJavaHashOrder(keys, 256, true)
	require.Equal(t, []string{"broker-s", "broker-b", "broker-c", "broker-a"}, keys)
	keys = []string{"broker-a", "broker-s", "broker-b"}
	SortJavaHashOrder(keys, 16, false)
	require.Equal(t, []string{"broker-b", "broker-s", "broker-a"}, keys)
}

func TestJavaCompare(t *testing.T) {
	require.Negative(t, javaCompare("a", "b"))
	require.Negative(t, javaCompare("a", "ab"))
	require.Zero(t, javaCompare("same", "same"))
	require.Negative(t, javaCompare("B", "a"))
	// UTF-16 order: a supplementary character (surrogates D800..DFFF) sorts
	// before U+FFFD, unlike in UTF-8 byte order.
	require.Negative(t, javaCompare("x😀", "x\uFFFD"))
	require.Positive(t, javaCompare("é", "e"))
}
