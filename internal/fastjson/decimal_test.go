package fastjson

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDecimal(t *testing.T) {
	for _, s := range []string{"0", "-0", "+7", "42", "-2147483648", "2147483647", "9223372036854775807",
		"-9223372036854775808", "0000000000000000001"} {
		want, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err, s)
		got, ok := ParseDecimal([]byte(s))
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "-", "+", "1.5", "1e3", "9223372036854775808", "-9223372036854775809",
		"12345678901234567890", " 1", "0x10", "--1"} {
		_, ok := ParseDecimal([]byte(s))
		require.False(t, ok, s)
	}
	v, ok := ParseDecimal([]byte("-9223372036854775808"))
	require.True(t, ok)
	require.Equal(t, int64(math.MinInt64), v)
}
