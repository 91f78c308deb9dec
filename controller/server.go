//go:build embedded_controller

package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/internal/version"
	"github.com/rmqgo/nameserver/proxyproto"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
)

// Controller is one running controller node: the broker-facing remoting
// server, the Raft node with the replicated FSM, the per-node heartbeat
// manager, the leader's per-set scheduler, election triggers and the
// role-change notifier.
type Controller struct {
	cfg   atomic.Pointer[config.ControllerConfig]
	cfgMu sync.Mutex // serialises UPDATE_CONTROLLER_CONFIG
	// cfgRefused and cfgUpdated pace the lines of 1009 outcomes, which
	// anyone who reaches the port can cause (ACL off): one a second each,
	// counting the rest.
	cfgRefused, cfgUpdated lograte.Limiter
	logger                 hclog.Logger
	opts                   options
	peers                  []config.Peer // remoting addresses, config order

	fsm        *FSM
	hb         *liveness.Table
	node       *raftstore.Node
	srv        *remoting.Server
	ln         net.Listener
	trans      raft.Transport // until Start hands it to raftstore.Open
	sched      *sched.Scheduler
	notifier   *notifier
	gate       leaderGate
	conns      sync.Map        // ConnID → *remoting.Conn that carried heartbeats
	loops      electionLoops   // the sets whose triggered election loop runs (election_loop.go)
	window     *electionWindow // group commit of triggered elections (election_window.go)
	rechecking sync.Map        // brokerName → struct{}: an inactive broker is checked again (election_inactive.go)

	inactive atomic.Pointer[inactiveQueue] // the ready term's inactive brokers (election_inactive.go)
	// held are the losses seen while not the ready leader during the
	// warm-up; handoverMu orders them with the gate's opening (election_trigger.go).
	held       *inactiveQueue
	handoverMu sync.Mutex
	recent     recentElections // when this node applied each set's last election (resend.go)

	acl *acl.Authorizer // nil when aclEnable is false
	// drift is what the last check of controllerRaftPeers against the Raft
	// configuration found (members_drift.go).
	drift driftWatch
	// backupSlot lets one backup run at a time (backup.go).
	backupSlot sync.Mutex
	// versionRounds counts the leader's cluster-version polls (clusterversion.go).
	versionRounds atomic.Int64

	ctx      context.Context
	cancel   context.CancelFunc
	mu       sync.Mutex // guards closed and wg.Add
	closed   bool
	wg       sync.WaitGroup
	started  atomic.Bool
	stopping atomic.Bool
	stopOnce sync.Once
	stopErr  error
}

// New validates cfg and binds both listeners: the remoting server on
// bindAddress plus the port of this node's controllerDLegerPeers entry, and
// the Raft transport on its controllerRaftPeers entry (unless options
// supply them). A bind failure names the address; nothing stays open when
// New fails. Call Start to open Raft and serve.
func New(cfg *config.ControllerConfig, logger hclog.Logger, opts ...Option) (*Controller, error) {
	o := buildOptions(opts)
	if err := cfg.Validate(); err != nil {
		closeOwned(o)
		return nil, fmt.Errorf("controller: invalid config: %w", err)
	}
	// Strangers cause many of its lines (connections, requests,
	// heartbeats): every sub-logger shares one set of limiters.
	c := &Controller{logger: lograte.Wrap(logger).Named("controller"), opts: o, window: &electionWindow{w: o.electionWindow},
		cfgRefused: lograte.Limiter{Every: time.Second}, cfgUpdated: lograte.Limiter{Every: time.Second}}
	c.cfg.Store(cfg.Clone())
	c.peers, _ = cfg.DLegerPeers() // validated above
	var err error
	if c.acl, err = newACL(cfg, c); err != nil {
		closeOwned(o)
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if err := c.bind(cfg); err != nil {
		c.cancel()
		c.closeACL()
		return nil, err
	}
	warnOpenRaftPort(cfg, c.logger)
	c.fsm = o.fsm
	if c.fsm == nil {
		c.fsm = NewFSM(c.logger)
	}
	c.hb = liveness.New(liveness.Options{Clock: o.clock, Logger: c.logger,
		OnInactive: c.onBrokerInactive, CloseConn: c.closeConn})
	c.fsm.onElected(c.noteElected)
	c.srv = remoting.NewServer(remoting.ServerConfig{Logger: c.logger.Named("remoting"), Observer: o.remoting,
		IdleTimeout: time.Duration(cfg.ServerChannelMaxIdleTimeSeconds) * time.Second,
		Authorize:   authorizeHook(c.acl),
		// PROXY header first (HAProxy sends it before the TLS ClientHello).
		// No GoAwayPeriod, whatever enableShutdownGracefully says: Shutdown
		// stops serving before it closes Raft, so a leader waiting there
		// would keep the group's leadership while refusing its requests
		// (Java's ControllerManager.shutdown closes DLedger first).
		ConnHooks: append(proxyproto.ConnHooks(&cfg.ProxyProtocol, c.logger), o.connHooks()...)})
	c.srv.OnConnClose(c.onConnClose)
	c.registerProcessors()
	c.sched = sched.New(schedulerQueueSize, maxOwnElections, maxTaskBytes)
	c.held = newInactiveQueue()
	c.notifier = newNotifier(c.ctx, c.logger, o.observer, o.version)
	c.notifier.tls = o.tls.Client
	return c, nil
}

// closeOwned releases the listener and transport handed over by options.
func closeOwned(o options) {
	if o.listener != nil {
		_ = o.listener.Close()
	}
	if t, ok := o.transport.(raft.WithClose); ok {
		_ = t.Close()
	}
}

// bind opens (or adopts) the remoting listener and the Raft transport.
func (c *Controller) bind(cfg *config.ControllerConfig) error {
	c.ln = c.opts.listener
	if c.ln == nil {
		addr, err := remotingBindAddr(cfg)
		if err == nil {
			c.ln, err = net.Listen("tcp", addr)
		}
		if err != nil {
			closeOwned(c.opts)
			return fmt.Errorf("controller: cannot listen on remoting address %s: %w", addr, err)
		}
	}
	if c.opts.node != nil || c.opts.transport != nil {
		c.trans = c.opts.transport
		return nil
	}
	t, err := newRaftTransport(cfg, c.logger)
	if err != nil {
		_ = c.ln.Close()
		return err
	}
	c.trans = t
	return nil
}

// remotingBindAddr is bindAddress with the self peer's port, as DLedger
// overwrites listenPort with it.
func remotingBindAddr(cfg *config.ControllerConfig) (string, error) {
	self := cfg.SelfRemotingAddr()
	_, port, err := net.SplitHostPort(self)
	if err != nil {
		return self, err
	}
	return net.JoinHostPort(cfg.BindAddress, port), nil
}

// Start opens the Raft node (bootstrapping the configured peers on first
// start), then serves remoting, watches leadership and scans heartbeats.
// On failure everything opened is closed.
func (c *Controller) Start() error {
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("controller: already started")
	}
	if err := c.openRaft(); err != nil {
		_ = c.ln.Close()
		c.cancel()
		return err
	}
	cfg := c.config()
	c.spawn(c.sched.Run)
	c.hb.StartServing() // its warm-up counts from the first heartbeat it can read
	c.spawn(c.serve)
	c.checkDrift()
	c.spawn(c.watchLeadership)
	scan := time.Duration(cfg.ScanNotActiveBrokerInterval) * time.Millisecond
	c.spawn(func() { c.hb.Run(c.ctx, min(heartbeatFirstScan, scan), scan) })
	c.spawn(c.forgetHeldLosses)
	c.logger.Info("controller started", "id", cfg.ControllerDLegerSelfId, "remoting", c.ln.Addr().String(),
		"raft", c.node.Addr(), "peers", cfg.ControllerDLegerPeers, "binary_version", version.Version,
		"format_version", c.fsm.readsFormat(), "cluster_version", c.fsm.ClusterVersion())
	return nil
}

func (c *Controller) openRaft() error {
	if c.opts.node != nil {
		c.node = c.opts.node
		return nil
	}
	cfg := c.config()
	raftPeers, _ := cfg.RaftPeers()
	rc := raftstore.Config{SelfID: cfg.ControllerDLegerSelfId, Dir: cfg.ControllerStorePath,
		Transport: c.trans, Logger: c.logger, CheckCommand: c.fsm.checkEntry,
		CheckSnapshot: c.fsm.checkSnapshot, MaxSnapshotBytes: maxInboundSnapshot}
	for _, p := range raftPeers {
		rc.Peers = append(rc.Peers, raftstore.Peer{ID: p.ID, RaftAddr: p.Addr})
	}
	if c.opts.raftTune != nil {
		c.opts.raftTune(&rc)
	}
	c.trans = nil // raftstore.Open owns it from here, even on failure
	node, err := raftstore.Open(rc, c.fsm)
	if err != nil {
		return fmt.Errorf("controller: open raft node %s in %s: %w", rc.SelfID, rc.Dir, err)
	}
	c.node = node
	return nil
}

func (c *Controller) serve() {
	if err := c.srv.Serve(c.ln); err != nil {
		c.logger.Error("remoting server stopped", "error", err)
	}
}

// spawn runs fn on a goroutine that Shutdown waits for; after Shutdown
// began it does nothing and reports false.
func (c *Controller) spawn(fn func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		fn()
	}()
	return true
}

// Shutdown stops serving (in-flight requests finish), stops the leader
// machinery and closes the Raft node. It does not trigger elections for
// the brokers whose connections it closes. Later calls return the first
// call's result.
func (c *Controller) Shutdown(ctx context.Context) error {
	c.stopOnce.Do(func() { c.stopErr = c.shutdown(ctx) })
	return c.stopErr
}

func (c *Controller) shutdown(ctx context.Context) error {
	c.stopping.Store(true)
	c.gate.clear()
	var errs []error
	if c.started.Load() {
		errs = append(errs, c.srv.Shutdown(ctx))
	} else {
		errs = append(errs, c.ln.Close())
	}
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.sched.Stop()
	c.wg.Wait()
	c.notifier.wait()
	c.closeACL()
	if c.trans != nil {
		closeOwned(options{transport: c.trans})
	}
	if c.node != nil && c.opts.node == nil {
		errs = append(errs, c.node.Close())
	}
	c.logger.Info("controller stopped", "id", c.config().ControllerDLegerSelfId)
	return errors.Join(errs...)
}

// config returns the live configuration (replaced by 1009 updates).
func (c *Controller) config() *config.ControllerConfig { return c.cfg.Load() }

// Config returns a copy of the live configuration.
func (c *Controller) Config() *config.ControllerConfig { return c.config().Clone() }

// Addr returns the broker-facing remoting address being served.
func (c *Controller) Addr() string { return c.ln.Addr().String() }

// Node returns the Raft node (nil before Start).
func (c *Controller) Node() *raftstore.Node { return c.node }

// IsReadyLeader reports whether this node serves leader-gated requests.
func (c *Controller) IsReadyLeader() bool { return c.gate.ready(c.node) }

// RaftStats returns the Raft node's Stats plus "leader_id" when a leader
// is known (for metrics); nil before Start.
func (c *Controller) RaftStats() map[string]string {
	if c.node == nil {
		return nil
	}
	stats := c.node.Stats()
	if id := c.node.LeaderID(); id != "" {
		stats["leader_id"] = id
	}
	c.fsm.stats(stats)
	c.driftStats(stats)
	c.boundStats(stats)
	return stats
}

// MasterEpochs maps each broker set to its master epoch (for metrics).
func (c *Controller) MasterEpochs() map[string]int32 {
	out := map[string]int32{}
	c.fsm.read(func(s *state) {
		for _, name := range s.BrokerNames() {
			if ss, ok := s.SyncState(name); ok {
				out[name] = ss.MasterEpoch
			}
		}
	})
	return out
}

// remotingAddrOf maps a Raft server id to its broker-facing address.
func (c *Controller) remotingAddrOf(id string) string {
	for _, p := range c.peers {
		if p.ID == id {
			return p.Addr
		}
	}
	return ""
}

// peersString is the 1005 peers field: "n0:addr;n1:addr;".
func (c *Controller) peersString() string {
	var b []byte
	for _, p := range c.peers {
		b = append(append(append(append(b, p.ID...), ':'), p.Addr...), ';')
	}
	return string(b)
}

// metadata is the GetMetaDataResponseHeader of 1005.
func (c *Controller) metadata() map[string]string {
	m := map[string]string{"isLeader": strconv.FormatBool(c.node.IsLeader()), "peers": c.peersString()}
	c.addVersionFields(m)
	c.addDriftField(m)
	if g := c.config().ControllerDLegerGroup; g != "" {
		m["group"] = g
	}
	if id := c.node.LeaderID(); id != "" {
		m["controllerLeaderId"] = id
		if addr := c.remotingAddrOf(id); addr != "" {
			m["controllerLeaderAddress"] = addr
		}
	}
	return m
}
