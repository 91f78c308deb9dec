//go:build embedded_controller

package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// newLoggedController starts a one-node controller whose log (warn and
// above, plus info) goes to the returned Lines.
func newLoggedController(t *testing.T, props ...string) (*Controller, *testlog.Lines) {
	t.Helper()
	logger, lines := testlog.Capture(t, "ctl", hclog.Info)
	var machine *FSM
	cluster := raftstoretest.NewInmemCluster(t, 1, func(id string) raft.FSM {
		machine = NewFSM(logger.Named(id))
		return machine
	})
	id := cluster.IDs()[0]
	lns, peers := listenPeers(t, cluster.IDs())
	cfg := testControllerConfig(t, id, peers, fakeRaftPeers(cluster.IDs()), props...)
	ctl, err := New(cfg, logger.Named(id), WithListener(lns[0]), WithRaftNode(cluster.Node(id), machine))
	require.NoError(t, err)
	require.NoError(t, ctl.Start())
	t.Cleanup(func() { require.NoError(t, ctl.Shutdown(context.Background())) })
	return ctl, lines
}

// TestAttackConfigUpdateLogBounded (log lines a stranger can
// cause): every refused 1009 wrote one WARN line holding the refused value,
// and every accepted one an INFO line holding the whole body (a frame is
// up to 64 MiB). 200 refused updates with a 16 KiB value and one accepted
// update carrying a 256 KiB unknown key: the refusals are rate-limited
// (one line a second, counting the rest) and the accepted update logs the
// keys it changed, not the body.
func TestAttackConfigUpdateLogBounded(t *testing.T) {
	ctl, lines := newLoggedController(t, "configBlackList=")
	a := dialAttack(t, ctl.Addr())
	start := time.Now()
	bad := []byte("scanInactiveMasterInterval=" + strings.Repeat("9x", 8<<10))
	for range 200 {
		a.opaque++
		req := remoting.NewRequest(remoting.UpdateControllerConfig, nil, bad)
		req.Opaque = a.opaque
		frame, err := remoting.AppendFrame(nil, req)
		require.NoError(t, err)
		_, err = a.nc.Write(frame)
		require.NoError(t, err)
		require.NotEqual(t, int32(codeSuccess), readResponse(t, a.nc, a.r).Code)
	}
	secs := int(time.Since(start)/time.Second) + 1
	refused := lines.Count("controller config update refused")
	body := []byte("scanInactiveMasterInterval=6000\nzz" + strings.Repeat("z", 256<<10) + "=1")
	resp := invoke(t, ctl.Addr(), remoting.UpdateControllerConfig, nil, body)
	t.Logf("accepted update: code %d %q", resp.Code, resp.Remark)
	t.Logf("200 refused updates in %d s: %d warning lines; %d bytes of log in all", secs, refused, len(lines.String()))
	require.LessOrEqual(t, refused, secs+1, "refusals are rate-limited")
	require.Less(t, len(lines.String()), 64<<10, "no line holds a stranger's body")
	require.True(t, lines.Has("controller config updated"), "an accepted update is still logged")
}
