package admin

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// Progress is called after every round with the result so far, the last
// call being the final result.
func TestWaitRouteReportsEachRound(t *testing.T) {
	srv := remoting.NewServer(remoting.ServerConfig{})
	srv.Register(remoting.GetRouteinfoByTopic, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		return remoting.NewResponse(req, remoting.TopicNotExist, "No topic route info in name server for the topic: T"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	c := New(Options{})
	defer c.Close()
	var rounds []int
	res := c.WaitRoute(context.Background(), WaitOptions{NameServers: []string{ln.Addr().String()}, Topic: "T",
		Timeout: 300 * time.Millisecond, Interval: 20 * time.Millisecond,
		Progress: func(r *WaitResult) { rounds = append(rounds, r.Rounds) }})
	require.False(t, res.Ready)
	require.NotEmpty(t, rounds)
	require.Equal(t, res.Rounds, rounds[len(rounds)-1])
	for i := 1; i < len(rounds); i++ {
		require.GreaterOrEqual(t, rounds[i], rounds[i-1])
	}
}
