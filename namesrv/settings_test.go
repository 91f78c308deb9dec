package namesrv

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// registerRequest builds a REGISTER_BROKER request as a 5.x master sends it
// (BrokerOuterAPI.registerBrokerAll) with n topics.
func registerRequest(t testing.TB, name, addr string, n int) *remoting.Command {
	topics := make(map[string]wire.TopicConfig, n)
	for i := range n {
		tn := fmt.Sprintf("%s-topic-%06d", name, i)
		topics[tn] = wire.TopicConfig{TopicName: tn, ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6, TopicFilterType: "SINGLE_TAG"}
	}
	b, err := wire.EncodeRegisterBody(&wire.RegisterBody{
		DataVersion:      wire.DataVersion{Counter: 1, Timestamp: 1700000000000},
		TopicConfigs:     topics,
		FilterServerList: []string{},
	}, remoting.CurrentVersion, false)
	require.NoError(t, err)
	return remoting.NewRequest(remoting.RegisterBroker, map[string]string{
		"brokerAddr": addr, "brokerId": "0", "brokerName": name, "clusterName": "C",
		"haServerAddr": addr, "enableActingMaster": "false", "compressed": "false",
		"bodyCrc32": fmt.Sprint(wire.CRC32(b)),
	}, b)
}

func TestNeedWaitForService(t *testing.T) {
	srv := startServer(t, func(c *config.NamesrvConfig) {
		c.NeedWaitForService = true
		c.WaitSecondsForService = 600
	})
	resp := invoke(t, dial(t, srv), remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "T"}, nil))
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Equal(t, "name server not ready", resp.Remark)
}

func TestTopicListsDisabled(t *testing.T) {
	srv := startServer(t, func(c *config.NamesrvConfig) {
		c.EnableTopicList = false
		c.EnableAllTopicList = false
	})
	c := dial(t, srv)
	for _, code := range []int32{remoting.GetAllTopicListFromNameserver, remoting.GetTopicsByCluster,
		remoting.GetUnitTopicList, remoting.GetHasUnitSubTopicList, remoting.GetHasUnitSubUnunitTopicList} {
		resp := invoke(t, c, remoting.NewRequest(code, map[string]string{"cluster": "C"}, nil))
		require.Equal(t, remoting.SystemError, resp.Code, "code %d", code)
		require.Equal(t, "disable", resp.Remark, "code %d", code)
	}
	// The system topic list has no switch.
	resp := invoke(t, c, remoting.NewRequest(remoting.GetSystemTopicListFromNs, nil, nil))
	require.Equal(t, remoting.Success, resp.Code)
}

// TestRegister100kTopics registers one broker with 100,000 topics in one
// frame under the default frameMaxLength (Java's 16 MiB limit refuses this
// at 60-70k topics) and looks one of them up.
func TestRegister100kTopics(t *testing.T) {
	srv := startServer(t, nil)
	c := dial(t, srv)
	req := registerRequest(t, "big", "10.9.0.1:10911", 100_000)
	require.Greater(t, len(req.Body), 16<<20, "the body must exceed Java's 16 MiB frame limit")
	// A 100,000-topic registration takes about 5 s under -race alone, and
	// minutes on a starved machine: both requests wait until the test's
	// own deadline, whatever the speed.
	ctx := untilTestDeadline(t)
	resp, err := c.Invoke(ctx, req)
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	resp, err = c.Invoke(ctx, remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "big-topic-099999"}, nil))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	require.Equal(t, 100_000, srv.Routes().Stats().Topics)
}

// untilTestDeadline is a context cancelled at the test's end and, under
// go test -timeout, a few seconds before it, so that a request that never
// completes fails the test with its error rather than with the binary's
// timeout panic.
func untilTestDeadline(t *testing.T) context.Context {
	d, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), d.Add(-5*time.Second))
	t.Cleanup(cancel)
	return ctx
}

func TestUpdateConfigTakesEffectLive(t *testing.T) {
	srv := startServer(t, nil)
	c := dial(t, srv)
	resp := invoke(t, c, remoting.NewRequest(remoting.UpdateNamesrvConfig, nil, []byte("enableAllTopicList=false\n")))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	resp = invoke(t, c, remoting.NewRequest(remoting.GetAllTopicListFromNameserver, nil, nil))
	require.Equal(t, "disable", resp.Remark)
	resp = invoke(t, c, remoting.NewRequest(remoting.GetNamesrvConfig, nil, nil))
	require.Contains(t, string(resp.Body), "enableAllTopicList=false\n")

	for _, key := range []string{"kvConfigPath", "configStorePath", "rocketmqHome", "controllerStorePath"} {
		resp = invoke(t, c, remoting.NewRequest(remoting.UpdateNamesrvConfig, nil, []byte(key+"=/tmp/x\n")))
		require.Equal(t, remoting.NoPermission, resp.Code, key)
	}
}
