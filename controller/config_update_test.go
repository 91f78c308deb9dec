//go:build embedded_controller

package controller

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// TestConfigUpdateRefusesIdentity: 1009 never changes what a node is
// (id, peers, addresses, sizes), whatever configBlackList says; an
// unparsable value is refused naming it, and nothing changes.
func TestConfigUpdateRefusesIdentity(t *testing.T) {
	ic := newCluster(t, 1, withProps("configBlackList="))
	n := ic.leader(t)
	for _, body := range []string{"controllerDLegerSelfId=n1", "controllerRaftPeers=n0-127.0.0.1:1",
		"controllerDLegerPeers=n0-127.0.0.1:1", "listenPort=1", "bindAddress=10.9.9.9", "controllerDLegerGroup=x"} {
		resp := invoke(t, n.Addr(), remoting.UpdateControllerConfig, nil, []byte(body))
		require.Equal(t, codeNoPermission, resp.Code, body)
		require.Equal(t, "Can not update config in black list.", resp.Remark, body)
	}
	resp := invoke(t, n.Addr(), remoting.UpdateControllerConfig, nil, []byte("scanInactiveMasterInterval=soon"))
	require.Equal(t, codeSystemError, resp.Code)
	require.Contains(t, resp.Remark, "scanInactiveMasterInterval (soon)")
	require.Equal(t, "n0", n.config().ControllerDLegerSelfId)
	require.Equal(t, int64(5000), n.config().ScanInactiveMasterInterval)
}
