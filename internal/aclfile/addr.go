package aclfile

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Pattern matches remote IP addresses. Forms (Java's
// RemoteAddressStrategyFactory, plus CIDR): "*" (also "*.*.*.*" and
// "*:*:*:*:*:*:*:*") matches all; "192.168.0.1" one address;
// "192.168.0.{1,2}" a list; "192.168.*.*", "192.168.1.1-10" ranges per
// part; IPv6 alike ("2::ac5:78:1-200:*"); "10.0.0.0/8" a prefix.
type Pattern struct {
	text   string
	all    bool
	addrs  []netip.Addr
	prefix netip.Prefix
	ranges [][2]uint16 // per part: 4 for IPv4, 8 for IPv6
}

// String returns the pattern as written.
func (p *Pattern) String() string { return p.text }

// ParsePattern parses one address pattern.
func ParsePattern(s string) (*Pattern, error) {
	s = strings.TrimSpace(s)
	p := &Pattern{text: s}
	var err error
	switch {
	case s == "*" || s == "*.*.*.*" || s == "*:*:*:*:*:*:*:*":
		p.all = true
	case strings.Contains(s, "/"):
		p.prefix, err = netip.ParsePrefix(s)
	case strings.Contains(s, "{"):
		p.addrs, err = parseList(s)
	case strings.ContainsAny(s, "*-"):
		p.ranges, err = parseRanges(s)
	default:
		var a netip.Addr
		a, err = netip.ParseAddr(s)
		p.addrs = []netip.Addr{a.Unmap()}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrBadPattern, s, err)
	}
	return p, nil
}

// parseList reads "prefix{a,b,...}": each item completes the prefix.
func parseList(s string) ([]netip.Addr, error) {
	open := strings.IndexByte(s, '{')
	if !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("a list must end with }")
	}
	var out []netip.Addr
	for _, item := range strings.Split(s[open+1:len(s)-1], ",") {
		a, err := netip.ParseAddr(s[:open] + strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		out = append(out, a.Unmap())
	}
	return out, nil
}

// parseRanges reads per-part ranges: "*", "lo-hi" or a number; decimal
// parts for IPv4, hexadecimal for IPv6 (where "::" may abbreviate zeros).
func parseRanges(s string) ([][2]uint16, error) {
	parts, base, max := strings.Split(s, "."), 10, uint64(255)
	if strings.Contains(s, ":") {
		var err error
		if parts, err = expandV6(s); err != nil {
			return nil, err
		}
		base, max = 16, 0xffff
	} else if len(parts) != 4 {
		return nil, fmt.Errorf("an IPv4 pattern has 4 parts")
	}
	out := make([][2]uint16, len(parts))
	for i, part := range parts {
		r, err := parseRange(part, base, max)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// expandV6 splits an IPv6 pattern into 8 parts, expanding "::" to zeros.
func expandV6(s string) ([]string, error) {
	left, right, double := strings.Cut(s, "::")
	parts := strings.Split(left, ":")
	if !double {
		if len(parts) != 8 {
			return nil, fmt.Errorf("an IPv6 pattern has 8 parts")
		}
		return parts, nil
	}
	var tail []string
	if right != "" {
		tail = strings.Split(right, ":")
	}
	if left == "" {
		parts = nil
	}
	missing := 8 - len(parts) - len(tail)
	if missing < 1 {
		return nil, fmt.Errorf("too many IPv6 parts")
	}
	for range missing {
		parts = append(parts, "0")
	}
	return append(parts, tail...), nil
}

func parseRange(part string, base int, max uint64) ([2]uint16, error) {
	if part == "*" {
		return [2]uint16{0, uint16(max)}, nil
	}
	lo, hi, isRange := strings.Cut(part, "-")
	if !isRange {
		hi = lo
	}
	l, err1 := strconv.ParseUint(lo, base, 16)
	h, err2 := strconv.ParseUint(hi, base, 16)
	if err1 != nil || err2 != nil || l > h || h > max {
		return [2]uint16{}, fmt.Errorf("bad part %q", part)
	}
	return [2]uint16{uint16(l), uint16(h)}, nil
}

// Match reports whether addr matches the pattern.
func (p *Pattern) Match(addr netip.Addr) bool {
	addr = addr.Unmap()
	switch {
	case p.all:
		return true
	case p.prefix.IsValid():
		return p.prefix.Contains(addr)
	case p.ranges != nil:
		return matchRanges(p.ranges, addr)
	}
	for _, a := range p.addrs {
		if a == addr.WithZone("") {
			return true
		}
	}
	return false
}

func matchRanges(ranges [][2]uint16, addr netip.Addr) bool {
	var parts []uint16
	if b := addr.As16(); addr.Is4() && len(ranges) == 4 {
		parts = []uint16{uint16(b[12]), uint16(b[13]), uint16(b[14]), uint16(b[15])}
	} else if addr.Is6() && len(ranges) == 8 {
		for i := range 8 {
			parts = append(parts, uint16(b[2*i])<<8|uint16(b[2*i+1]))
		}
	} else {
		return false
	}
	for i, r := range ranges {
		if parts[i] < r[0] || parts[i] > r[1] {
			return false
		}
	}
	return true
}

// MatchAny reports whether one of ps matches addr.
func MatchAny(ps []*Pattern, addr netip.Addr) bool {
	for _, p := range ps {
		if p.Match(addr) {
			return true
		}
	}
	return false
}
