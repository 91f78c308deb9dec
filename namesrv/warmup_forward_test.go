package namesrv

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// TestAttackWarmupForwardCarriesOnlyWhatALookupReads: a client's lookup
// of an unknown topic during warm-up is re-sent to every peer in turn, so
// whatever it carries is multiplied by the peers. A body, a remark and
// extra ext fields (none of which a lookup reads: Java's
// GetRouteInfoRequestHeader holds topic and acceptStandardJsonOnly, and
// ZoneRouteRPCHook reads __ZONE_MODE and __ZONE_NAME) must not reach the
// peer: only those fields and the marker do.
func TestAttackWarmupForwardCarriesOnlyWhatALookupReads(t *testing.T) {
	addr, got, release := holdingPeer(t)
	close(release) // the peer answers 17 at once
	warm := startServer(t, func(c *config.NamesrvConfig) {
		c.WarmupForwardPeers, c.WarmupForwardSeconds = addr, 600
	})
	req := lookupReq("attack-topic", 479)
	req.Body = bytes.Repeat([]byte{'b'}, 1<<20)
	req.Remark = string(bytes.Repeat([]byte{'r'}, 64<<10))
	for i := range 1000 {
		req.ExtFields[fmt.Sprintf("junk%04d", i)] = "0123456789abcdef0123456789abcdef"
	}
	req.ExtFields["acceptStandardJsonOnly"] = "true"
	req.ExtFields["__ZONE_MODE"], req.ExtFields["__ZONE_NAME"] = "true", "z1"
	require.Equal(t, remoting.TopicNotExist, invoke(t, dial(t, warm), req).Code)
	var fwd *remoting.Command
	select {
	case fwd = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the lookup was not forwarded")
	}
	require.Zero(t, len(fwd.Body), "body forwarded")
	require.Zero(t, len(fwd.Remark), "remark forwarded")
	require.Equal(t, map[string]string{"topic": "attack-topic", "acceptStandardJsonOnly": "true",
		"__ZONE_MODE": "true", "__ZONE_NAME": "z1", forwardedMarker: "true"}, fwd.ExtFields)
}
