//go:build embedded_controller

package controller

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// inmemControllers is a controller per node of an in-memory Raft cluster,
// each serving remoting on its own loopback port.
type inmemControllers struct {
	cluster *raftstore.TestCluster
	ctls    map[string]*Controller
	obs     map[string]*recordingObserver
}

// clusterOptions configure newCluster.
type clusterOptions struct {
	wrap   func(id string, f *FSM) raft.FSM // Raft drives wrap(id, fsm) instead of each node's FSM
	extra  []Option                         // options for every controller (e.g. WithClock)
	logger hclog.Logger                     // nil: raftstoretest.TestLogger(t, "ctl")
	tune   func(*raftstore.Config)          // adjusts each node's Raft config (e.g. steadyRaft)
	props  []string                         // properties added to every node's config
}

// clusterOpt is one option of newCluster.
type clusterOpt func(*clusterOptions)

// wrapFSM makes Raft drive wrap(id, fsm) instead of each node's FSM.
func wrapFSM(wrap func(id string, f *FSM) raft.FSM) clusterOpt {
	return func(o *clusterOptions) { o.wrap = wrap }
}

// withOptions adds options for every controller.
func withOptions(extra ...Option) clusterOpt {
	return func(o *clusterOptions) { o.extra = append(o.extra, extra...) }
}

// withLogger logs every node to logger (e.g. a testlog.Capture logger).
func withLogger(logger hclog.Logger) clusterOpt {
	return func(o *clusterOptions) { o.logger = logger }
}

// tuneRaft adjusts each node's Raft config.
func tuneRaft(tune func(*raftstore.Config)) clusterOpt {
	return func(o *clusterOptions) { o.tune = tune }
}

// withProps adds properties to every node's config.
func withProps(props ...string) clusterOpt {
	return func(o *clusterOptions) { o.props = append(o.props, props...) }
}

// steadyRaft gives an in-memory cluster the production Raft timeouts
// (500 ms heartbeat, 250 ms lease) instead of its fast ones (100 ms, 50 ms),
// for scenarios that need one leader throughout and not fast elections: on
// a loaded machine the 50 ms lease was lost again and again.
func steadyRaft(cfg *raftstore.Config) {
	cfg.HeartbeatTimeout = raftstore.DefaultHeartbeatTimeout
	cfg.ElectionTimeout = raftstore.DefaultElectionTimeout
	cfg.LeaderLeaseTimeout = raftstore.DefaultLeaderLeaseTimeout
}

// newCluster starts n controllers on raftstoretest.NewInmemCluster, each
// serving remoting on its own loopback port (hashicorp/raft's
// MakeClusterOpts style: one builder, options for what differs).
func newCluster(t *testing.T, n int, with ...clusterOpt) *inmemControllers {
	t.Helper()
	o := clusterOptions{}
	for _, opt := range with {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = raftstoretest.TestLogger(t, "ctl")
	}
	wrap, extra, logger, tune, props := o.wrap, o.extra, o.logger, o.tune, o.props
	fsms := map[string]*FSM{}
	var mu sync.Mutex
	var opts []func(*raftstore.Config)
	if tune != nil {
		opts = append(opts, tune)
	}
	cluster := raftstoretest.NewInmemCluster(t, n, func(id string) raft.FSM {
		mu.Lock()
		defer mu.Unlock()
		fsms[id] = NewFSM(logger.Named(id))
		if wrap != nil {
			return wrap(id, fsms[id])
		}
		return fsms[id]
	}, opts...)
	lns, peers := listenPeers(t, cluster.IDs())
	ic := &inmemControllers{cluster: cluster, ctls: map[string]*Controller{}, obs: map[string]*recordingObserver{}}
	for i, id := range cluster.IDs() {
		cfg := testControllerConfig(t, id, peers, fakeRaftPeers(cluster.IDs()), props...)
		ic.obs[id] = newRecordingObserver()
		opts := append([]Option{WithListener(lns[i]), WithObserver(ic.obs[id]),
			WithRaftNode(cluster.Node(id), fsms[id])}, extra...)
		ctl, err := New(cfg, logger.Named(id), opts...)
		require.NoError(t, err)
		require.NoError(t, ctl.Start())
		ic.ctls[id] = ctl
		t.Cleanup(func() { require.NoError(t, ctl.Shutdown(context.Background())) })
	}
	return ic
}

// leader waits for a stable Raft leader and its controller's readiness
// (the gate opens after a Barrier), for up to 10 s. A leader that loses
// its lease (50 ms in memory) before it is ready, under load, is not
// waited for: the next stable leader is.
func (ic *inmemControllers) leader(t *testing.T) *Controller {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		node := ic.cluster.Leader(t)
		ctl := ic.ctls[node.ID()]
		for node.IsLeader() && !ctl.IsReadyLeader() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if ctl.IsReadyLeader() {
			return ctl
		}
		require.True(t, time.Now().Before(deadline), "no controller leader ready within 10 s (last %s)", node.ID())
		t.Logf("raft leader %s lost its leadership before its controller was ready; waiting for the next", node.ID())
	}
}

// follower returns a controller that is not the leader.
func (ic *inmemControllers) follower(t *testing.T) *Controller {
	t.Helper()
	return ic.ctls[ic.cluster.Followers(t)[0].ID()]
}

// listenPeers opens a loopback listener per id and returns the
// controllerDLegerPeers value naming their ports.
func listenPeers(t *testing.T, ids []string) ([]net.Listener, string) {
	t.Helper()
	var lns []net.Listener
	var parts []string
	for _, id := range ids {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns = append(lns, ln)
		parts = append(parts, id+"-"+ln.Addr().String())
	}
	return lns, strings.Join(parts, ";")
}

// fakeRaftPeers names placeholder Raft addresses (the in-memory cluster
// has its own transports).
func fakeRaftPeers(ids []string) string {
	var parts []string
	for i, id := range ids {
		parts = append(parts, fmt.Sprintf("%s-127.0.0.2:%d", id, 40000+i))
	}
	return strings.Join(parts, ";")
}

// testControllerConfig writes and loads a controller properties file.
func testControllerConfig(t *testing.T, self, peers, raftPeers string, props ...string) *config.ControllerConfig {
	t.Helper()
	dir := t.TempDir()
	lines := append([]string{
		"controllerDLegerGroup=group1",
		"controllerDLegerPeers=" + peers,
		"controllerRaftPeers=" + raftPeers,
		"controllerDLegerSelfId=" + self,
		"controllerStorePath=" + filepath.Join(dir, "store"),
		"configStorePath=" + filepath.Join(dir, "controller.properties"),
	}, props...)
	path := filepath.Join(dir, "controller.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	cfg, err := config.LoadController(path)
	require.NoError(t, err)
	return cfg
}

// invoke sends one request to addr on a fresh connection.
func invoke(t *testing.T, addr string, code int32, ext map[string]string, body []byte) *remoting.Command {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(code, ext, body))
	require.NoError(t, err)
	return resp
}

// recordingObserver records what the controller reports.
type recordingObserver struct {
	mu        sync.Mutex
	elections []string
	closed    map[liveness.ConnID]int
	notified  []string
	ready     []bool
	beats     int
}

func newRecordingObserver() *recordingObserver {
	return &recordingObserver{closed: map[liveness.ConnID]int{}}
}

func (o *recordingObserver) ElectionFinished(tr ElectTrigger, code int32, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.elections = append(o.elections, fmt.Sprintf("%s:%d", tr, code))
}

func (o *recordingObserver) LeadershipChanged(ready bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ready = append(o.ready, ready)
}

func (o *recordingObserver) ConnClosed(id liveness.ConnID, evicted int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed[id] = evicted
}

func (o *recordingObserver) NotifySent(addr string, epoch int32, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.notified = append(o.notified, fmt.Sprintf("%s@%d:%v", addr, epoch, err))
}

func (o *recordingObserver) HeartbeatReceived() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.beats++
}

func (o *recordingObserver) snapshot() (elections []string, ready []bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.elections...), append([]bool(nil), o.ready...)
}
