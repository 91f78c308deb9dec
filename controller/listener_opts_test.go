//go:build embedded_controller

package controller

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// With enableProxyProtocol the controller's listener refuses a header from
// outside proxyProtocolTrustedSources and serves plain requests.
func TestControllerProxyProtocolRefusesUntrustedHeader(t *testing.T) {
	ic := newCluster(t, 1, withProps("enableProxyProtocol=true", "proxyProtocolTrustedSources=10.0.0.0/8"))
	ctl := ic.leader(t)
	addr := ctl.Addr()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer nc.Close()
	_, err = nc.Write([]byte("PROXY TCP4 10.1.1.1 10.0.0.1 5555 9878\r\n"))
	require.NoError(t, err)
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = nc.Read(make([]byte, 1))
	require.Error(t, err)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "closed, not left hanging: %v", err)
	require.EqualValues(t, remoting.Success, invoke(t, addr, remoting.ControllerGetMetadataInfo, nil, nil).Code)
}

// enableShutdownGracefully gives the controller no GO_AWAY phase: a
// connected 5.3.3 peer does not hold Shutdown for shutdownWaitTimeSeconds.
func TestControllerShutdownIgnoresGracefulFlag(t *testing.T) {
	ic := newCluster(t, 1, withProps("enableShutdownGracefully=true", "shutdownWaitTimeSeconds=600"))
	ctl := ic.leader(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, ctl.Addr(), remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil))
	require.NoError(t, err)
	require.EqualValues(t, remoting.Success, resp.Code)
	require.NoError(t, ctl.Shutdown(ctx), "drained at once, the peer still connected")
}
