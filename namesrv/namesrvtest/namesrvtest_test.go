package namesrvtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/remoting"
)

// Start serves on loopback with the options' configuration: a route
// lookup of an unknown topic gets TOPIC_NOT_EXIST from the started server.
func TestStartServesWithTheOptionsConfig(t *testing.T) {
	var seen *config.NamesrvConfig
	srv := namesrvtest.Start(t, namesrvtest.WithConfig(func(c *config.NamesrvConfig) {
		c.ServerChannelMaxIdleTimeSeconds = 7
		seen = c
	}))
	require.Equal(t, 7, seen.ServerChannelMaxIdleTimeSeconds)
	require.Equal(t, "127.0.0.1", seen.BindAddress)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, srv.Addr().String(), remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	req := remoting.NewRequest(105, map[string]string{"topic": "NoSuchTopic"}, nil)
	resp, err := c.Invoke(ctx, req)
	require.NoError(t, err)
	require.EqualValues(t, 17, resp.Code, "TOPIC_NOT_EXIST")
}

// A test may shut the server down itself; the cleanup's shutdown then
// does nothing and fails nothing.
func TestStartedServerMayBeShutDownByTheTest(t *testing.T) {
	srv := namesrvtest.Start(t)
	require.NoError(t, srv.Shutdown(context.Background()))
}
