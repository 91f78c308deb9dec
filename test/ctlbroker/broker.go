package ctlbroker

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/remoting"
)

// Defaults of Config.
const (
	DefaultCluster          = "DefaultCluster"
	DefaultHeartbeatTimeout = 10 * time.Second // controllerHeartBeatTimeoutMills
	DefaultCallTimeout      = 6 * time.Second  // the processor waits at most 5 s
	dialTimeout             = time.Second
)

// Config describes one controller-mode broker.
type Config struct {
	Cluster     string   // clusterName; default DefaultCluster
	Name        string   // brokerName, the broker set
	Controllers []string // controllerAddr entries, "host:port"
	NameServers []string // namesrvAddr entries, "host:port"
	// HeartbeatTimeout is sent in 904 as heartbeatTimeoutMills.
	HeartbeatTimeout time.Duration
	// CallTimeout bounds one request (within the caller's context).
	CallTimeout time.Duration
	Logger      hclog.Logger // nil discards
}

func (c Config) withDefaults() Config {
	if c.Cluster == "" {
		c.Cluster = DefaultCluster
	}
	if c.HeartbeatTimeout <= 0 {
		c.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c
}

// Broker is one running test broker. Its methods are safe for concurrent
// use.
type Broker struct {
	cfg     Config
	log     hclog.Logger
	srv     *remoting.Server
	addr    string
	notices noticeLog

	mu        sync.Mutex
	id        int64 // controller-assigned id, 0 until ApplyID
	epoch     int32 // last masterEpoch known, sent in 904 as epoch
	clients   map[string]*remoting.Client
	leader    string
	lastBeat  time.Time
	hbStop    chan struct{}
	hbDone    chan struct{}
	nsVersion int64 // DataVersion counter of NameServer registrations
}

// New starts a broker listening on 127.0.0.1:0; it talks to nobody yet.
func New(cfg Config) (*Broker, error) {
	cfg = cfg.withDefaults()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("brokerflow: listen: %w", err)
	}
	b := &Broker{cfg: cfg, addr: ln.Addr().String(), clients: map[string]*remoting.Client{}}
	b.log = cfg.Logger.With("broker", b.addr)
	b.notices.init()
	b.srv = remoting.NewServer(remoting.ServerConfig{Logger: b.log.Named("server")})
	b.srv.Register(remoting.NotifyBrokerRoleChanged, b.onRoleChanged)
	go func() {
		if err := b.srv.Serve(ln); err != nil {
			b.log.Debug("serve ended", "error", err)
		}
	}()
	return b, nil
}

// onRoleChanged records a 1008 and answers 0, as AdminBrokerProcessor does
// (nothing goes back for the controllers' oneway sends).
func (b *Broker) onRoleChanged(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	b.notices.add(Notice{Req: req, At: time.Now()})
	b.log.Debug("NOTIFY_BROKER_ROLE_CHANGED", "ext", req.ExtFields, "body", string(req.Body))
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

// Close stops the heartbeats and closes every connection and the listener.
func (b *Broker) Close() error {
	b.StopHeartbeats()
	b.CloseConns()
	return b.srv.Close()
}

// Addr is the broker's advertised address, "127.0.0.1:port".
func (b *Broker) Addr() string { return b.addr }

// Name is the broker set's name.
func (b *Broker) Name() string { return b.cfg.Name }

// Cluster is the broker's cluster name.
func (b *Broker) Cluster() string { return b.cfg.Cluster }

// ID is the controller-assigned broker id (0 before ApplyID).
func (b *Broker) ID() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.id
}

// ident is ID as text.
func (b *Broker) ident() string { return strconv.FormatInt(b.ID(), 10) }

// SetEpoch records the masterEpoch the broker knows (sent in 904).
func (b *Broker) SetEpoch(epoch int32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.epoch = epoch
}

// WaitNotice is Notices' first 1008 naming masterEpoch, waiting for it
// until ctx ends.
func (b *Broker) WaitNotice(ctx context.Context, masterEpoch int32) (Notice, error) {
	want := strconv.FormatInt(int64(masterEpoch), 10)
	n, err := b.notices.wait(ctx, func(n Notice) bool { return n.Req.ExtFields["masterEpoch"] == want })
	if err != nil {
		return Notice{}, fmt.Errorf("%s: no NOTIFY_BROKER_ROLE_CHANGED for masterEpoch %d: %w", b.addr, masterEpoch, err)
	}
	return n, nil
}

// Notices returns every 1008 received so far, in arrival order.
func (b *Broker) Notices() []Notice { return b.notices.snapshot() }

// client returns the live connection to addr (a controller or NameServer),
// dialing it if there is none or the last one is gone.
func (b *Broker) client(ctx context.Context, addr string) (*remoting.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.clients[addr]; ok && !isDone(c) {
		return c, nil
	}
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := remoting.Dial(dctx, addr, remoting.ClientOptions{Logger: b.log.Named("client")})
	if err != nil {
		delete(b.clients, addr)
		return nil, err
	}
	b.clients[addr] = c
	return c, nil
}

func isDone(c *remoting.Client) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// Invoke sends one request to addr and waits for the reply, within
// CallTimeout and ctx.
func (b *Broker) Invoke(ctx context.Context, addr string, code int32, ext map[string]string, body []byte) (*remoting.Command, error) {
	c, err := b.client(ctx, addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	resp, err := c.Invoke(ctx, remoting.NewRequest(code, ext, body))
	if err != nil {
		return nil, fmt.Errorf("code %d to %s: %w", code, addr, err)
	}
	return resp, nil
}

// CloseConns closes every controller and NameServer connection, which is
// what the servers see of a crashed broker; the listener stays open.
func (b *Broker) CloseConns() {
	b.mu.Lock()
	clients := b.clients
	b.clients = map[string]*remoting.Client{}
	b.leader = ""
	b.mu.Unlock()
	for _, c := range clients {
		_ = c.Close()
	}
}

// Reconnect moves the broker to fresh controller connections: a
// synchronous heartbeat on each new one first, then the old ones close (a
// late close of a stale session must not evict the broker).
func (b *Broker) Reconnect(ctx context.Context) error {
	b.mu.Lock()
	var old []*remoting.Client
	for addr, c := range b.clients {
		if slices.Contains(b.cfg.Controllers, addr) {
			old = append(old, c)
			delete(b.clients, addr)
		}
	}
	b.mu.Unlock()
	err := b.HeartbeatSync(ctx)
	for _, c := range old {
		_ = c.Close()
	}
	return err
}

// Notice is one NOTIFY_BROKER_ROLE_CHANGED (1008) received on the broker's
// port: header masterAddress, masterEpoch, syncStateSetEpoch,
// masterBrokerId; body the sync-state set.
type Notice struct {
	Req *remoting.Command
	At  time.Time // arrival
}

// noticeLog is an append-only record of notices that readers can wait on.
type noticeLog struct {
	mu      sync.Mutex
	items   []Notice
	changed chan struct{} // closed and replaced on every add
}

func (l *noticeLog) init() { l.changed = make(chan struct{}) }

// add appends n and wakes every waiter.
func (l *noticeLog) add(n Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, n)
	close(l.changed)
	l.changed = make(chan struct{})
}

// snapshot returns a copy of the notices so far.
func (l *noticeLog) snapshot() []Notice {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items)
}

// find returns the first notice matching pred, or the channel closed on
// the next add.
func (l *noticeLog) find(pred func(Notice) bool) (Notice, bool, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.items {
		if pred(n) {
			return n, true, nil
		}
	}
	return Notice{}, false, l.changed
}

// wait returns the first notice matching pred, waiting until ctx ends.
func (l *noticeLog) wait(ctx context.Context, pred func(Notice) bool) (Notice, error) {
	for {
		n, ok, changed := l.find(pred)
		if ok {
			return n, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Notice{}, ctx.Err()
		}
	}
}
