package fastjson

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Escapes as fastjson 1.2.83's SerializeWriter writes them, in both
// flavours.
func TestAppendStringEscapes(t *testing.T) {
	cases := []struct {
		in, def, std string
	}{
		{"plain", `"plain"`, `"plain"`},
		{`a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"a/b", `"a/b"`, `"a\/b"`},
		{"\b\t\n\f\r", `"\b\t\n\f\r"`, `"\b\t\n\f\r"`},
		{"\x00\x01\x07\x0b\x0e\x1f", `"\u0000\u0001\u0007\u000B\u000E\u001F"`, `"\u0000\u0001\u0007\u000B\u000E\u001F"`},
		{"x\x7fy", `"x\u007Fy"`, `"x\u007Fy"`},
		{"é", `"é"`, `"\u00E9"`},
		{"\u0085\u009f\u00a0", `"\u0085\u009F` + "\u00a0" + `"`, `"\u0085\u009F\u00A0"`},
		{"a\u2028b\u2029", `"a\u2028b\u2029"`, `"a\u2028b\u2029"`},
		{"\u2027\u202a\u00c2", "\"\u2027\u202a\u00c2\"", `"\u2027\u202A\u00C2"`},
		{"中文", `"中文"`, `"\u4E2D\u6587"`},
		{"😀", `"😀"`, `"\uD83D\uDE00"`},
		{"x\xffy", "\"x\uFFFDy\"", `"x\uFFFDy"`},
		{"<>()'", `"<>()'"`, `"<>()'"`},
		{"See https://rocketmq.apache.org", `"See https://rocketmq.apache.org"`,
			`"See https:\/\/rocketmq.apache.org"`},
	}
	for _, c := range cases {
		require.Equal(t, c.def, string(AppendString(nil, c.in, Default)), "default %q", c.in)
		require.Equal(t, c.std, string(AppendString(nil, c.in, Standard)), "standard %q", c.in)
	}
}

// fastjson writes Java strings, so its output is always valid UTF-8: an
// invalid byte is written as U+FFFD, as Java would have decoded it.
func TestAppendStringInvalidUTF8(t *testing.T) {
	got := AppendString(nil, "bad\xc2|\xff", Default)
	require.True(t, utf8.Valid(got), "%q", got)
	require.Equal(t, "\"bad\uFFFD|\uFFFD\"", string(got))
}

func TestAppendLongAndKeys(t *testing.T) {
	require.Equal(t, `9007199254740991`, string(AppendLong(nil, MaxSafeLong, Standard)))
	require.Equal(t, `"9007199254740992"`, string(AppendLong(nil, MaxSafeLong+1, Standard)))
	require.Equal(t, `"-9007199254740992"`, string(AppendLong(nil, -MaxSafeLong-1, Standard)))
	require.Equal(t, `9007199254740992`, string(AppendLong(nil, MaxSafeLong+1, Default)))
	require.Equal(t, `-3:`, string(AppendNumberKey(nil, -3, Default)))
	require.Equal(t, `"7":`, string(AppendNumberKey(nil, 7, Standard)))
}

func TestAppendStringAllocationFree(t *testing.T) {
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendString(buf[:0], "a\"b\n中😀\u2028\x7f", Standard)
		buf = AppendString(buf[:0], "a\"b\n中😀\u2028\x7f", Default)
	})
	require.Zero(t, allocs)
}
