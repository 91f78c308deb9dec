package aclfile

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPatterns(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{"*", []string{"1.2.3.4", "::1"}, nil},
		{"*.*.*.*", []string{"10.0.0.1"}, nil},
		{"192.168.0.1", []string{"192.168.0.1", "::ffff:192.168.0.1"}, []string{"192.168.0.2"}},
		{"192.168.0.*", []string{"192.168.0.0", "192.168.0.255"}, []string{"192.168.1.1", "::1"}},
		{"192.168.*.*", []string{"192.168.7.9"}, []string{"192.169.0.1"}},
		{"192.168.1.1-10", []string{"192.168.1.1", "192.168.1.10"}, []string{"192.168.1.11", "192.168.1.0"}},
		{"192.168.1-2.*", []string{"192.168.2.200"}, []string{"192.168.3.1"}},
		{"192.168.0.{1,2}", []string{"192.168.0.1", "192.168.0.2"}, []string{"192.168.0.3"}},
		{"10.0.0.0/8", []string{"10.9.9.9"}, []string{"11.0.0.1"}},
		{"2::ac5:78:1-200:*", []string{"2::ac5:78:1:5", "2::ac5:78:200:ffff"}, []string{"2::ac5:78:201:0", "3::ac5:78:1:5"}},
		{"2::ac5:78:*", []string{"2::ac5:78:abcd"}, []string{"2::ac5:79:0"}},
		{"1050::5:600:300c:{1,2}", []string{"1050::5:600:300c:1"}, []string{"1050::5:600:300c:3"}},
		{"::1", []string{"::1"}, []string{"127.0.0.1"}},
	} {
		p, err := ParsePattern(tc.pattern)
		require.NoError(t, err, tc.pattern)
		for _, s := range tc.match {
			require.True(t, p.Match(netip.MustParseAddr(s)), "%s should match %s", tc.pattern, s)
		}
		for _, s := range tc.miss {
			require.False(t, p.Match(netip.MustParseAddr(s)), "%s should not match %s", tc.pattern, s)
		}
	}
}

func TestBadPatterns(t *testing.T) {
	for _, s := range []string{"", "192.168.0", "192.168.0.256", "192.168.0.10-1", "192.168.0.{1,x}",
		"192.168.0.{1", "1:2:3:*", "1::2::*", "abc", "10.0.0.0/33", "192.168.0.1-300"} {
		_, err := ParsePattern(s)
		require.ErrorIs(t, err, ErrBadPattern, "%q", s)
	}
}

// FuzzParsePattern: any text parses or fails with ErrBadPattern, never
// panics, and a parsed pattern matches without panicking.
func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{"*", "192.168.0.*", "192.168.1.1-10", "192.168.0.{1,2}", "2::ac5:78:1-200:*",
		"10.0.0.0/8", "::", ":::*", "{}", "1.2.3.}{4}", "-", "fe80::1%eth0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePattern(s)
		if err != nil {
			require.ErrorIs(t, err, ErrBadPattern)
			return
		}
		for _, a := range []string{"127.0.0.1", "::1", "192.168.0.1", "2::ac5:78:1:5"} {
			p.Match(netip.MustParseAddr(a))
		}
	})
}
