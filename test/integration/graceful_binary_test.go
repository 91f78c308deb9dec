package integration

import (
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/remoting"
)

// routeRequest is GET_ROUTEINFO_BY_TOPIC as a peer of that MQVersion
// ordinal sends it.
func routeRequest(version int32) *remoting.Command {
	req := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "NoSuchTopic"}, nil)
	req.Version = version
	return req
}

// TestBinarySIGTERMGoesAwayGracefully: with enableShutdownGracefully the
// cmd/namesrv binary, on SIGTERM, refuses new connections, answers a 5.3.3
// peer GO_AWAY (1500) and an old one (rocketmq-client-go's 317) as usual,
// and exits 0 as soon as both peers closed, long before its
// shutdownWaitTimeSeconds of 600.
func TestBinarySIGTERMGoesAwayGracefully(t *testing.T) {
	p := startBinary(t, map[string]string{"enableShutdownGracefully": "true", "shutdownWaitTimeSeconds": "600"})
	java, old := dialNS(t, p.addr), dialNS(t, p.addr)
	resp, err := java.Invoke(ctxT(t), routeRequest(remoting.CurrentVersion))
	require.NoError(t, err)
	require.EqualValues(t, remoting.TopicNotExist, resp.Code)

	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	poll.Until(t, "GO_AWAY to a 5.3.3 peer", waitTimeout, 10*time.Millisecond, func() error {
		resp, err := java.Invoke(ctxT(t), routeRequest(remoting.CurrentVersion))
		if err != nil || resp.Code != remoting.GoAway {
			return fmt.Errorf("resp %v, err %v", resp, err)
		}
		return nil
	})
	resp, err = old.Invoke(ctxT(t), routeRequest(317))
	require.NoError(t, err)
	require.EqualValues(t, remoting.TopicNotExist, resp.Code, "an old peer is served while going away")
	_, err = net.DialTimeout("tcp", p.addr, time.Second)
	require.Error(t, err, "new connections are refused")

	require.NoError(t, java.Close())
	require.NoError(t, old.Close())
	select {
	case <-p.done:
	case <-time.After(waitTimeout):
		t.Fatal("namesrv still running after its last peer closed")
	}
	require.Equal(t, 0, p.cmd.ProcessState.ExitCode())
}
