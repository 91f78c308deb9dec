//go:build embedded_controller

package controllertest

import (
	"github.com/rmqgo/nameserver/internal/goldenfile"

	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/remoting"
)

func decodeHexFrame(t *testing.T, s string) *remoting.Command {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	cmd, err := remoting.DecodeFrame(b[4:])
	require.NoError(t, err)
	return cmd
}

// makeLeader moves Raft leadership to nd and waits until it is ready.
func makeLeader(t *testing.T, c *cluster, nd *node) {
	t.Helper()
	for deadline := time.Now().Add(waitLimit); !nd.ctl.IsReadyLeader(); {
		require.True(t, time.Now().Before(deadline), "leadership never moved to %s", nd.id)
		if cur := c.leader(); cur != nd {
			err := cur.ctl.Node().Raft().LeadershipTransferToServer(raft.ServerID(nd.id), raft.ServerAddress(nd.raft)).Error()
			t.Logf("leadership transfer %s -> %s: %v", cur.id, nd.id, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGoldenReplayOnCluster replays every golden exchange against a real
// three-node cluster whose n0 leads, over one connection per golden
// connection, and compares code, remark, header fields, body, flag,
// language and version. The capture came from Java's standalone
// mqcontroller, which answers with version 0, so the cluster runs with
// WithResponseVersion(0); by default the Go controller answers 479 like
// the NameServer-embedded Java controller. notifyBrokerRoleChanged is off
// because the capture's broker addresses are made up.
func TestGoldenReplayOnCluster(t *testing.T) {
	replayGoldenOnCluster(t, remoting.ClientOptions{})
}

// replayGoldenOnCluster runs the replay with clients dialled with copts
// and every node built with opts.
func replayGoldenOnCluster(t *testing.T, copts remoting.ClientOptions, opts ...controller.Option) {
	lines := goldenfile.Load(t, goldenfile.Controller)
	c := startCluster(t, 3, []string{"notifyBrokerRoleChanged=false"}, append(opts, controller.WithResponseVersion(0))...)
	makeLeader(t, c, c.nodes[0])
	// the follower's metadata names the leader only once it has heard from it
	require.Eventually(t, func() bool {
		_, id := c.nodes[1].ctl.Node().Raft().LeaderWithID()
		return string(id) == c.nodes[0].id
	}, waitLimit, 5*time.Millisecond, "n1 never learned that n0 leads")
	conns := map[string]*remoting.Client{"leader": dialNode(t, c.nodes[0], copts), "follower": dialNode(t, c.nodes[1], copts)}
	addrs := strings.NewReplacer("127.0.0.1:9878", c.nodes[0].remoting,
		"127.0.0.1:9868", c.nodes[1].remoting, "127.0.0.1:9858", c.nodes[2].remoting)
	for _, ex := range lines {
		req, want := decodeHexFrame(t, ex.RequestHex), decodeHexFrame(t, ex.ResponseHex)
		for k, v := range want.ExtFields {
			want.ExtFields[k] = addrs.Replace(v)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got, err := conns[ex.Connection].Invoke(ctx, req)
		cancel()
		require.NoError(t, err, ex.Case)
		require.Equal(t, want.Code, got.Code, ex.Case)
		require.Equal(t, want.Remark, got.Remark, ex.Case)
		require.Equal(t, want.ExtFields == nil, got.ExtFields == nil, "%s: header present", ex.Case)
		if req.Code == remoting.ControllerGetMetadataInfo {
			dropVersionFields(t, got.ExtFields) // ours, past Java's
		}
		if want.ExtFields != nil {
			require.Equal(t, want.ExtFields, got.ExtFields, ex.Case)
		}
		require.Equal(t, string(want.Body), string(got.Body), ex.Case)
		require.Equal(t, want.Flag, got.Flag, ex.Case)
		require.Equal(t, want.Language, got.Language, ex.Case)
		require.Equal(t, want.Version, got.Version, ex.Case)
	}
	t.Logf("%d golden controller exchanges replayed against a 3-node cluster", len(lines))
}

func dialNode(t *testing.T, nd *node, opts remoting.ClientOptions) *remoting.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl, err := remoting.Dial(ctx, nd.remoting, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}
