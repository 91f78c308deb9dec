package config

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProxyProtocolOffByDefault(t *testing.T) {
	c := Default()
	require.False(t, c.EnableProxyProtocol)
	require.Empty(t, c.ProxyProtocolTrustedSources)
	require.Contains(t, string(c.Render()), "enableProxyProtocol=false\n")
}

func TestProxyProtocolTrustedSources(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties",
		"enableProxyProtocol=true\nproxyProtocolTrustedSources=10.0.0.0/8; 192.0.2.7,2001:db8::/32 ::ffff:198.51.100.0/120\n"))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	got, err := c.TrustedProxies()
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"),
		netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("198.51.100.0/24"),
	}, got)
}

// Enabled without a trusted source, and a bad entry, are both reported,
// naming the key; a bad entry is refused even while the protocol is off.
func TestProxyProtocolValidation(t *testing.T) {
	c := Default()
	c.EnableProxyProtocol = true
	err := c.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	requireKeysNamed(t, err, "proxyProtocolTrustedSources must list")

	c = Default()
	c.ProxyProtocolTrustedSources = "10.0.0.0/8;not-an-ip;fe80::1%eth0"
	err = c.Validate()
	requireKeysNamed(t, err, `proxyProtocolTrustedSources entry "not-an-ip"`)

	cc, err := LoadController(controllerFile(t, "enableProxyProtocol=true\n"))
	require.NoError(t, err)
	requireKeysNamed(t, cc.Validate(), "proxyProtocolTrustedSources must list")
}

// Who may claim another client's address is not remotely updatable.
func TestProxyProtocolKeysNotUpdatable(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "configBlackList=\n"))
	require.NoError(t, err)
	for _, body := range []string{"enableProxyProtocol=true", "proxyProtocolTrustedSources=0.0.0.0/0"} {
		_, err := c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}
