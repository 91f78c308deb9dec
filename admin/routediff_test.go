package admin

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

func view(addr string, brokers map[string]wire.BrokerData, routes map[string]*wire.TopicRouteData) *NodeView {
	ci := &wire.ClusterInfo{BrokerAddrTable: brokers, ClusterAddrTable: map[string][]string{}}
	for name, b := range brokers {
		ci.ClusterAddrTable[b.Cluster] = append(ci.ClusterAddrTable[b.Cluster], name)
	}
	return &NodeView{Addr: addr, Cluster: ci, Routes: routes}
}

func TestDiffViews(t *testing.T) {
	a := wire.BrokerData{Cluster: "C", BrokerName: "a", BrokerAddrs: map[int64]string{0: "h:1"}}
	moved := wire.BrokerData{Cluster: "C", BrokerName: "a", BrokerAddrs: map[int64]string{0: "h:2", 1: "h:3"}}
	rt := func(w int32) *wire.TopicRouteData {
		return &wire.TopicRouteData{QueueDatas: []wire.QueueData{{BrokerName: "a", ReadQueueNums: 4, WriteQueueNums: w, Perm: 6}}}
	}
	views := []*NodeView{
		view("n1", map[string]wire.BrokerData{"a": a}, map[string]*wire.TopicRouteData{"T": rt(4), "U": rt(1)}),
		view("n2", map[string]wire.BrokerData{"a": moved}, map[string]*wire.TopicRouteData{"T": rt(2)}),
		{Addr: "n3", Errs: []error{errors.New("boom")}},
	}
	d := DiffViews(views)
	require.Equal(t, []NodeError{{NameServer: "n3", Error: "boom"}}, d.Errors)
	require.False(t, d.Identical())
	got := map[string][]NodeValue{}
	for _, df := range d.Differences {
		got[df.Kind+" "+df.Name+" "+df.Aspect] = df.Values
	}
	require.Len(t, got, 3)
	require.Equal(t, "cluster=C addrs={0:h:2,1:h:3}", got["broker a registration"][1].Value)
	require.Equal(t, "read=4 write=2 perm=6(RW-) sysFlag=0", got["topic T queues on a"][1].Value)
	require.Equal(t, Absent, got["topic U route"][1].Value)
	same := DiffViews([]*NodeView{views[0], views[0]})
	require.True(t, same.Identical())
}

func TestPermString(t *testing.T) {
	require.Equal(t, "7(RWX)", PermString(7))
	require.Equal(t, "0(---)", PermString(0))
}
