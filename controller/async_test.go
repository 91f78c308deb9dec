//go:build embedded_controller

package controller

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/remoting"
)

// rawFrame encodes a request with the given opaque.
func rawFrame(t *testing.T, code int32, opaque int32, ext map[string]string) []byte {
	req := remoting.NewRequest(code, ext, nil)
	req.Opaque = opaque
	b, err := remoting.AppendFrame(nil, req)
	require.NoError(t, err)
	return b
}

// readResponse reads one frame from r (failing after 10 s).
func readResponse(t *testing.T, nc net.Conn, r *bufio.Reader) *remoting.Command {
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(10*time.Second)))
	frame, err := remoting.ReadFrame(r, 0, nil)
	require.NoError(t, err)
	resp, err := remoting.DecodeFrame(frame)
	require.NoError(t, err)
	return resp
}

// TestBlockedGatedWriteDoesNotDelayHeartbeatOnSameConnection settles the
// suspicion that requests of one connection run one at a time: a
// leader-gated write whose commit stalls (here the scheduler is held by a
// stub command) must not hold back a heartbeat pipelined behind it on the
// same connection; the heartbeat is answered and recorded while the write
// still waits, and the write is answered once it can run.
func TestBlockedGatedWriteDoesNotDelayHeartbeatOnSameConnection(t *testing.T) {
	ic := newCluster(t, 1)
	leader := ic.leader(t)
	release := make(chan struct{})
	released := false
	unblock := func() {
		if !released {
			released = true
			close(release)
		}
	}
	t.Cleanup(unblock)
	require.NoError(t, leader.sched.Submit(sched.GlobalKeys(), func() { <-release }))

	nc, err := net.Dial("tcp", leader.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	r := bufio.NewReader(nc)
	register := rawFrame(t, remoting.ControllerApplyBrokerID, 1,
		map[string]string{"clusterName": "c", "brokerName": "b", "appliedBrokerId": "1", "registerCheckCode": "x:1;1"})
	heartbeat := rawFrame(t, remoting.BrokerHeartbeat, 2,
		map[string]string{"clusterName": "c", "brokerName": "b", "brokerAddr": "x:1", "brokerId": "1"})
	_, err = nc.Write(append(register, heartbeat...))
	require.NoError(t, err)

	first := readResponse(t, nc, r)
	require.Equal(t, int32(2), first.Opaque, "the heartbeat is answered first (got code %d remark %q)", first.Code, first.Remark)
	require.Equal(t, codeSuccess, first.Code)
	require.True(t, leader.hb.IsActive("c", "b", 1), "heartbeat recorded while the write waits")

	unblock()
	second := readResponse(t, nc, r)
	require.Equal(t, int32(1), second.Opaque)
	require.Equal(t, codeSuccess, second.Code, "remark %q", second.Remark)
}
