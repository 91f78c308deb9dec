package body

import (
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
