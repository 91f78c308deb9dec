package admin

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseProperties(t *testing.T) {
	got := ParseProperties([]byte("# comment\n\nb=2\r\na = x=y\n! bang\nc:3\nflag\n"))
	require.Equal(t, []Property{{"b", "2"}, {"a", "x=y"}, {"c", "3"}, {"flag", ""}}, got)
}

func TestFormatPropertiesEscapes(t *testing.T) {
	b := FormatProperties([]Property{{"k", "v"}, {"a b=c", " lead\\tail\n"}})
	require.Equal(t, "k=v\na\\ b\\=c=\\ lead\\\\tail\\n\n", string(b))
}
