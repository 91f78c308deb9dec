package fastjson

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStringReader(t *testing.T) {
	cases := map[string]string{
		`"plain"x`:                      "plain",
		`'single "q"'`:                  `single "q"`,
		`"a\"b\\c\/d\'e"`:               `a"b\c/d'e`,
		`"\b\f\F\n\r\t\v\0\7"`:          "\b\f\f\n\r\t\v\x00\x07",
		`"\x41\u00e9\u4E2D"`:            "Aé中",
		`"\uD83D\uDE00|\uD83D|\uDE00x"`: "😀|\uFFFD|\uFFFDx",
		`"\uD83D\u0041"`:                "\uFFFDA",
		`"long text without escapes!"`:  "long text without escapes!",
	}
	var r StringReader
	for in, want := range cases {
		got, next, err := r.Read([]byte(in), 0)
		require.NoError(t, err, in)
		require.Equal(t, want, string(got), in)
		require.Equal(t, byte(in[0]), in[next-1], in)
	}
}

func TestStringReaderErrors(t *testing.T) {
	var r StringReader
	for in, want := range map[string]error{
		`"abc`: ErrUnterminated, `"ab\`: ErrUnterminated, `"a\q"`: ErrEscape,
		`"\u12"`: ErrEscape, `"\xZZ"`: ErrEscape, `"a\"`: ErrUnterminated,
		`"0123456789abcdef\`: ErrUnterminated,
	} {
		_, next, err := r.Read([]byte(in), 0)
		require.ErrorIs(t, err, want, in)
		require.LessOrEqual(t, next, len(in), in)
	}
}

func TestSkipWS(t *testing.T) {
	for in, want := range map[string]int{"": 0, "x": 0, " \t\n\r\f\bx": 6, "  ": 2, "\v": 0, "a  ": 0} {
		require.Equal(t, want, SkipWS([]byte(in), 0), "%q", in)
	}
}
