//go:build embedded_controller

package controller

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
)

// brokerListener is a broker's own remoting port that records 1008.
func brokerListener(t *testing.T) (string, <-chan *remoting.Command) {
	t.Helper()
	got := make(chan *remoting.Command, 8)
	srv := remoting.NewServer(remoting.ServerConfig{})
	srv.Register(remoting.NotifyBrokerRoleChanged, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		got <- req
		return nil, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String(), got
}

func TestNotifierDeliversOnewayRoleChange(t *testing.T) {
	addr, got := brokerListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := newRecordingObserver()
	n := newNotifier(ctx, raftstore.TestLogger(t, "notify"), obs, 0)
	entry := RoleChangeNotifyEntry{MasterAddress: "10.0.0.2:10911", MasterBrokerID: 2, MasterEpoch: 3,
		SyncStateSetEpoch: 4, SyncStateSet: []int64{2}}
	n.send(addr, entry)
	select {
	case req := <-got:
		require.True(t, req.IsOneway())
		require.Equal(t, map[string]string{"masterAddress": "10.0.0.2:10911", "masterBrokerId": "2",
			"masterEpoch": "3", "syncStateSetEpoch": "4"}, req.ExtFields)
		require.JSONEq(t, `{"syncStateSet":[2],"syncStateSetEpoch":4}`, string(req.Body))
	case <-time.After(5 * time.Second):
		t.Fatal("no 1008 received")
	}
	n.wait()
	require.Equal(t, []string{addr + "@3:<nil>"}, obs.notified)

	n.send(addr, entry) // refused after wait
	n.wait()
	require.Len(t, obs.notified, 1)
}

func TestNotifierReportsUnreachableBroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	obs := newRecordingObserver()
	n := newNotifier(context.Background(), raftstore.TestLogger(t, "notify"), obs, 0)
	n.send(addr, RoleChangeNotifyEntry{MasterBrokerID: 1, MasterEpoch: 1})
	n.wait()
	require.Len(t, obs.notified, 1)
	require.Contains(t, obs.notified[0], "dial")
}
