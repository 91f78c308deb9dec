package admin

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// stallingNameServer answers the first route lookup with TOPIC_NOT_EXIST
// and holds every later one until its client gives up.
func stallingNameServer(t *testing.T) string {
	srv := remoting.NewServer(remoting.ServerConfig{})
	var n atomic.Int32
	srv.Register(remoting.GetRouteinfoByTopic, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		if n.Add(1) == 1 {
			return remoting.NewResponse(req, remoting.TopicNotExist, "No topic route info in name server for the topic: T"), nil
		}
		time.Sleep(time.Second)
		return remoting.NewResponse(req, remoting.TopicNotExist, "late"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// A round cut short by the time-out does not replace the last complete
// one: the verdict shows what the NameServer last answered, not the
// deadline that interrupted the next lookup (TestWaitRouteWritable...
// in cmd/mqadmin failed that way on a loaded machine).
func TestWaitRouteKeepsLastCompleteRoundAtTimeout(t *testing.T) {
	ns := stallingNameServer(t)
	c := New(Options{})
	defer c.Close()
	res := c.WaitRoute(context.Background(), WaitOptions{NameServers: []string{ns}, Topic: "T",
		Timeout: 300 * time.Millisecond, Interval: 10 * time.Millisecond})
	require.False(t, res.Ready)
	require.Len(t, res.Statuses, 1)
	require.Contains(t, res.Statuses[0].Detail, "code 17", "rounds=%d", res.Rounds)
}
