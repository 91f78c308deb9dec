package config

import (
	"fmt"
	"net/netip"
	"strings"
)

// ProxyProtocol holds our PROXY protocol keys for the remoting listener
// (NameServer and Controller). Java 5.3's NettyRemotingServer has none: its
// HandshakeHandler accepts an HAProxy header from any peer. Ours reads a
// header only when enabled, and only from the trusted sources.
type ProxyProtocol struct {
	// EnableProxyProtocol reads a PROXY protocol v1 or v2 header from
	// trusted sources before the first frame.
	EnableProxyProtocol bool `prop:"enableProxyProtocol"`
	// ProxyProtocolTrustedSources lists, separated by ',' or ';', the IPs
	// and CIDRs of the load balancers allowed to send a header; required
	// when EnableProxyProtocol is true.
	ProxyProtocolTrustedSources string `prop:"proxyProtocolTrustedSources"`
}

// TrustedProxies parses ProxyProtocolTrustedSources: each entry an IP (a
// single address) or a CIDR, IPv4-mapped IPv6 entries taken as IPv4.
func (p *ProxyProtocol) TrustedProxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.FieldsFunc(p.ProxyProtocolTrustedSources, func(r rune) bool {
		return r == ',' || r == ';' || r == ' '
	}) {
		pf, err := parseSource(f)
		if err != nil {
			return nil, fmt.Errorf("%w: proxyProtocolTrustedSources entry %q is not an IP or CIDR", ErrInvalid, f)
		}
		out = append(out, pf)
	}
	return out, nil
}

func parseSource(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		ip, err := netip.ParseAddr(s)
		if err != nil || ip.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("%w: %s", ErrInvalid, s)
		}
		ip = ip.Unmap()
		return netip.PrefixFrom(ip, ip.BitLen()), nil
	}
	pf, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a := pf.Addr(); a.Is4In6() && pf.Bits() >= 96 {
		pf = netip.PrefixFrom(a.Unmap(), pf.Bits()-96)
	}
	return pf.Masked(), nil
}

// rules: every trusted source parses, and enabling the protocol needs at
// least one (trusting nobody would make the key a no-op, trusting everyone
// would let any client choose its address).
func (p *ProxyProtocol) rules(r *rules) {
	trusted, err := p.TrustedProxies()
	if err != nil {
		r.errs = append(r.errs, err)
		return
	}
	if p.EnableProxyProtocol && len(trusted) == 0 {
		r.addf("proxyProtocolTrustedSources must list the load balancers' IPs or CIDRs when enableProxyProtocol is true")
	}
}
