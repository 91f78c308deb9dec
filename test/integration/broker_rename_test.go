package integration

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// renamedBrokers is how many brokers TestRenamedBrokersLeaveNoGroup renames.
const renamedBrokers = 300

// registerAs sends a 5.3 broker's REGISTER_BROKER over c for the master
// of group name at addr, with the group's own topic.
func registerAs(ctx context.Context, c *remoting.Client, addr, name, topic string) error {
	rb := &wire.RegisterBody{
		DataVersion:      wire.DataVersion{Counter: 1, Timestamp: 1_700_000_000_000},
		TopicConfigs:     map[string]wire.TopicConfig{topic: fakebroker.Topic(topic, 4), name: fakebroker.Topic(name, 1)},
		FilterServerList: []string{},
	}
	data, err := wire.EncodeRegisterBody(rb, remoting.CurrentVersion, false)
	if err != nil {
		return err
	}
	ext := map[string]string{
		"brokerAddr": addr, "brokerId": "0", "brokerName": name, "clusterName": fakebroker.DefaultCluster,
		"haServerAddr": addr, "enableActingMaster": "false", "compressed": "false",
		"bodyCrc32": strconv.FormatInt(int64(wire.CRC32(data)), 10),
	}
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.RegisterBroker, ext, data))
	if err != nil {
		return err
	}
	if resp.Code != remoting.Success {
		return fmt.Errorf("register %s at %s: code %d %s", name, addr, resp.Code, resp.Remark)
	}
	return nil
}

// clusterGroups lists the groups GET_BROKER_CLUSTER_INFO answers, with
// their addresses.
func clusterGroups(ctx context.Context, c *remoting.Client) ([]string, error) {
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.GetBrokerClusterInfo, nil, nil))
	if err != nil {
		return nil, err
	}
	ci, err := wire.DecodeClusterInfo(resp.Body)
	if err != nil {
		return nil, err
	}
	var out []string
	for name, bd := range ci.BrokerAddrTable {
		out = append(out, fmt.Sprintf("%s %v", name, bd.BrokerAddrs))
	}
	sort.Strings(out)
	return out, nil
}

// TestRenamedBrokersLeaveNoGroup: 300 brokers each register as b0-i over
// one connection and again from the same address as broker-b-i over a
// second one (an operator renaming a broker, a pod back under a new name
// on its old IP): half close the first connection just before the
// second registration, so the old connection's unregistration is often
// still queued when it arrives, half after it. Once every connection has
// closed, no group is left and no topic has a route.
func TestRenamedBrokersLeaveNoGroup(t *testing.T) {
	srv := namesrvtest.Start(t)
	ns := srv.Addr().String()
	addr := func(i int) string { return fmt.Sprintf("10.77.%d.%d:10911", i/200, i%200) }
	topic := func(i int) string { return "RenameTopic-" + strconv.Itoa(i) }
	var wg sync.WaitGroup
	errs := make(chan error, renamedBrokers)
	for i := range renamedBrokers {
		first, second := dialNS(t, ns), dialNS(t, ns)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := ctxT(t)
			err := registerAs(ctx, first, addr(i), "b0-"+strconv.Itoa(i), topic(i))
			if err == nil && i%2 == 0 {
				_ = first.Close()
			}
			if err == nil {
				err = registerAs(ctx, second, addr(i), "broker-b-"+strconv.Itoa(i), topic(i))
			}
			_ = first.Close()
			_ = second.Close()
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	c := dialNS(t, ns)
	poll.Until(t, "no broker group left once every broker connection closed", waitTimeout, 10*time.Millisecond, func() error {
		srv.Routes().WaitIdle()
		groups, err := clusterGroups(ctxT(t), c)
		if err != nil || len(groups) == 0 {
			return err
		}
		return fmt.Errorf("%d groups left, e.g. %v", len(groups), groups[:min(4, len(groups))])
	})
	for i := range renamedBrokers {
		require.NoError(t, routeGone(ctxT(t), c, topic(i)))
	}
}
