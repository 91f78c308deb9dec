//go:build embedded_controller

package controller

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// TestAttackConfigUpdateCannotRaiseStateBounds: a stranger on the
// Controller port (ACL off, configBlackList emptied by the operator) sends
// 1009 to raise the replicated-state bounds, spelled as Java's properties
// parser would also read them (leading blanks, ':' separator, a \u escape
// in the key, several keys at once), or to empty the black list first.
// Every one is refused and the node's limits stay the configured ones.
func TestAttackConfigUpdateCannotRaiseStateBounds(t *testing.T) {
	ic := newCluster(t, 1, withProps("configBlackList=", "controllerMaxStateBytes=65536"))
	n := ic.leader(t)
	before := n.limits()
	for _, body := range []string{"controllerMaxStateBytes=67108864", "controllerMaxBrokerSets=100000",
		"controllerMaxBrokersPerSet=1024", "controllerMaxNameLength=255", "  controllerMaxStateBytes : 67108864",
		"controllerMaxState\\u0042ytes=67108864", "scanInactiveMasterInterval=5000\ncontrollerMaxNameLength=255",
		"configBlackList=\ncontrollerMaxStateBytes=67108864"} {
		resp := invoke(t, n.Addr(), remoting.UpdateControllerConfig, nil, []byte(body))
		t.Logf("%q: code %d %q", body, resp.Code, resp.Remark)
		require.NotEqual(t, int32(codeSuccess), resp.Code, body)
		require.Equal(t, before, n.limits(), body)
	}
	require.Equal(t, int64(65536), n.limits().StateBytes)
}
