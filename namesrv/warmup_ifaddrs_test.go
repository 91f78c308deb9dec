package namesrv

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// A host whose addresses cannot be listed (netlink sockets refused) gets a
// warning saying what it costs, rather than a silent self-forwarding peer.
func TestWarmupWarnsWhenAddressesUnlisted(t *testing.T) {
	saved := interfaceAddrs
	t.Cleanup(func() { interfaceAddrs = saved })
	interfaceAddrs = func() ([]net.Addr, error) {
		return nil, errors.New("route ip+net: netlinkrib: address family not supported by protocol")
	}
	var log strings.Builder
	checkInterfaceAddrs(hclog.New(&hclog.LoggerOptions{Output: &log}))
	require.Contains(t, log.String(), "cannot list this host's addresses")
	require.Contains(t, log.String(), "netlinkrib")
	require.False(t, isLocalIP(net.IPv4(10, 1, 2, 3)))

	interfaceAddrs = saved
	log.Reset()
	checkInterfaceAddrs(hclog.New(&hclog.LoggerOptions{Output: &log}))
	require.Empty(t, log.String())
}
