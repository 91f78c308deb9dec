package wire

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/fastjson"
)

// The scanner reads back what the shared escaper writes, in both flavours.
func TestAppendStringRoundTrip(t *testing.T) {
	for _, in := range []string{"a\"b\\c/d\x01\u2028é😀\x7f", "", "\u0085x"} {
		for _, f := range []Flavour{FastjsonDefault, Standard} {
			s := newScanner(fastjson.AppendString(nil, in, f))
			got, err := s.str()
			require.NoError(t, err)
			require.Equal(t, in, got)
		}
	}
}
