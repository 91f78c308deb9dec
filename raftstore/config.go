//go:build embedded_controller

package raftstore

import (
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Defaults applied by Open to zero-valued Config fields. The timeouts are
// tuned so that, on loopback, a new leader is elected and serving well
// within 3 s of the old leader's death.
const (
	DefaultHeartbeatTimeout   = 500 * time.Millisecond
	DefaultElectionTimeout    = 500 * time.Millisecond
	DefaultLeaderLeaseTimeout = 250 * time.Millisecond
	DefaultCommitTimeout      = 50 * time.Millisecond
	DefaultSnapshotThreshold  = 8192
	DefaultSnapshotInterval   = 30 * time.Second
	DefaultTrailingLogs       = 10240
	// DefaultApplyTimeout bounds Apply and Barrier when the context has
	// no deadline.
	DefaultApplyTimeout = 5 * time.Second
	// DefaultJoinProbeInterval is how often a node started with an empty
	// data directory asks its peers whether they already form a cluster.
	DefaultJoinProbeInterval = 500 * time.Millisecond
	// DefaultPeerErrorLogInterval is how often the log sums up the failed
	// outbound RPCs to each peer (raft's replaced line per attempt).
	DefaultPeerErrorLogInterval = 30 * time.Second
)

const (
	snapshotRetain = 2
	logFileName    = "raft.db"
	// maxAppendEntries bounds the entries of one leader log write and of
	// one AppendEntries RPC: a zone failure's hundreds of elections share
	// one or two fsyncs (hashicorp/raft's default is 64). It also
	// bounds the entries a follower receives in one RPC.
	maxAppendEntries = 256
	// logCacheEntries is how many of the newest entries raft.LogCache
	// keeps in memory in front of bbolt: the leader's replication reads
	// what it just wrote from there, not from a bbolt read transaction
	// (7.9 % of the CPU of 64 clients' alters went to BoltStore.GetLog).
	// Four leader batches; written entries only, so the log is unchanged.
	logCacheEntries = 4 * maxAppendEntries
)

// Peer is one voting member of the configured cluster.
type Peer struct {
	ID       string // raft.ServerID
	RaftAddr string // address of the peer's Raft transport
}

// Config configures one Raft node. Zero durations and counts take the
// Default* values.
type Config struct {
	// SelfID is this node's ID; it must be one of Peers.
	SelfID string
	// Peers is the configured cluster. It is used to bootstrap only when
	// the stores hold no Raft state yet (raft.HasExistingState); later
	// membership lives in the replicated log.
	Peers []Peer
	// Dir holds raft.db (log and stable store) and snapshots/.
	// Required unless InMemory.
	Dir string
	// BindAddr is the Raft TCP transport's listen address. Required
	// unless Transport is set.
	BindAddr string
	// AdvertiseAddr is the address other peers reach this node on;
	// empty means BindAddr's resolved address.
	AdvertiseAddr string
	// Transport, when set, is used instead of binding BindAddr. Open
	// takes ownership and closes it (if it has Close) on Close.
	Transport raft.Transport
	// Logger is the parent logger; raftstore logs under Named("raft").
	// Nil means hclog.Default().
	Logger hclog.Logger
	// CheckCommand, when set, is asked about the data of every
	// LogCommand entry an inbound AppendEntries carries, before raft
	// stores it; an error refuses the RPC (ErrBadRPC). The FSM's decoder
	// belongs here: an entry it cannot decode, stored and committed,
	// would stop the FSM at every start. Nil checks nothing.
	CheckCommand func(data []byte) error
	// CheckSnapshot, when set, reads the data of every inbound
	// InstallSnapshot as raft stores it; an error makes raft's copy fail,
	// so the snapshot is not kept (a snapshot the FSM cannot restore,
	// kept as the newest, stops the node at its next start). Nil checks
	// nothing.
	CheckSnapshot func(r io.Reader) error
	// MaxSnapshotBytes refuses an inbound InstallSnapshot announcing more
	// bytes (ErrBadRPC) before raft writes any to disk; 0 means no bound.
	MaxSnapshotBytes int64

	SnapshotThreshold  uint64        // log entries between automatic snapshots
	SnapshotInterval   time.Duration // how often the threshold is checked
	TrailingLogs       uint64        // entries kept after a snapshot
	HeartbeatTimeout   time.Duration
	ElectionTimeout    time.Duration
	LeaderLeaseTimeout time.Duration
	CommitTimeout      time.Duration
	// JoinProbeInterval is the period of the probe rounds on a start with
	// empty stores: the node joins when a peer holds a log, bootstraps
	// when a majority answered empty, and keeps asking otherwise (Open).
	JoinProbeInterval time.Duration
	// PeerErrorLogInterval is the period of the summary lines of failed
	// outbound RPCs: a peer's outage is logged at its first failure, when
	// its error changes (at most once per interval), once per interval
	// with the attempts that failed in it, and at its end (peerlog.go).
	PeerErrorLogInterval time.Duration

	// DiskFaults, when set, delays or stops this node's log writes on
	// demand (fault-injection tests only).
	DiskFaults *DiskFaults

	// InMemory selects raft.NewInmemStore and raft.NewInmemSnapshotStore
	// instead of Dir (unit tests only: nothing survives Close).
	InMemory bool
}

// Validate reports every problem with the config at once, each naming
// its field. The error wraps ErrInvalidConfig.
func (c *Config) Validate() error {
	d := c.withDefaults()
	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	if d.SelfID == "" {
		add("SelfID: must not be empty")
	}
	d.validatePeers(add)
	if d.Dir == "" && !d.InMemory {
		add("Dir: must not be empty unless InMemory is set")
	}
	d.validateAddrs(add)
	d.validateTimeouts(add)
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(problems, "; "))
}

func (c *Config) validatePeers(add func(string, ...any)) {
	if len(c.Peers) == 0 {
		add("Peers: must list at least one peer")
		return
	}
	ids, addrs := map[string]bool{}, map[string]bool{}
	for i, p := range c.Peers {
		switch {
		case p.ID == "":
			add("Peers[%d].ID: must not be empty", i)
		case ids[p.ID]:
			add("Peers[%d].ID: duplicate id %q", i, p.ID)
		}
		switch {
		case p.RaftAddr == "":
			add("Peers[%d].RaftAddr: must not be empty", i)
		case addrs[p.RaftAddr]:
			add("Peers[%d].RaftAddr: duplicate address %q", i, p.RaftAddr)
		case c.Transport == nil && !isHostPort(p.RaftAddr):
			add("Peers[%d].RaftAddr: %q is not host:port", i, p.RaftAddr)
		}
		ids[p.ID], addrs[p.RaftAddr] = true, true
	}
	if c.SelfID != "" && !ids[c.SelfID] {
		add("SelfID: %q is not one of Peers", c.SelfID)
	}
}

func (c *Config) validateAddrs(add func(string, ...any)) {
	if c.Transport != nil {
		return
	}
	if c.BindAddr == "" {
		add("BindAddr: must not be empty unless Transport is set")
	} else if !isHostPort(c.BindAddr) {
		add("BindAddr: %q is not host:port", c.BindAddr)
	}
	if c.AdvertiseAddr != "" && !isHostPort(c.AdvertiseAddr) {
		add("AdvertiseAddr: %q is not host:port", c.AdvertiseAddr)
	}
}

func (c *Config) validateTimeouts(add func(string, ...any)) {
	const floor = 5 * time.Millisecond
	for _, f := range []struct {
		name string
		v    time.Duration
	}{
		{"HeartbeatTimeout", c.HeartbeatTimeout}, {"ElectionTimeout", c.ElectionTimeout},
		{"LeaderLeaseTimeout", c.LeaderLeaseTimeout}, {"SnapshotInterval", c.SnapshotInterval},
		{"PeerErrorLogInterval", c.PeerErrorLogInterval},
	} {
		if f.v < floor {
			add("%s: %s is below the minimum %s", f.name, f.v, floor)
		}
	}
	if c.CommitTimeout < time.Millisecond {
		add("CommitTimeout: %s is below the minimum 1ms", c.CommitTimeout)
	}
	if c.LeaderLeaseTimeout > c.HeartbeatTimeout {
		add("LeaderLeaseTimeout: %s exceeds HeartbeatTimeout %s", c.LeaderLeaseTimeout, c.HeartbeatTimeout)
	}
	if c.ElectionTimeout < c.HeartbeatTimeout {
		add("ElectionTimeout: %s is below HeartbeatTimeout %s", c.ElectionTimeout, c.HeartbeatTimeout)
	}
}

// withDefaults returns a copy with zero fields replaced by defaults.
func (c *Config) withDefaults() Config {
	d := *c
	setDur(&d.HeartbeatTimeout, DefaultHeartbeatTimeout)
	setDur(&d.ElectionTimeout, DefaultElectionTimeout)
	setDur(&d.LeaderLeaseTimeout, DefaultLeaderLeaseTimeout)
	setDur(&d.CommitTimeout, DefaultCommitTimeout)
	setDur(&d.SnapshotInterval, DefaultSnapshotInterval)
	setDur(&d.JoinProbeInterval, DefaultJoinProbeInterval)
	setDur(&d.PeerErrorLogInterval, DefaultPeerErrorLogInterval)
	if d.SnapshotThreshold == 0 {
		d.SnapshotThreshold = DefaultSnapshotThreshold
	}
	if d.TrailingLogs == 0 {
		d.TrailingLogs = DefaultTrailingLogs
	}
	if d.Logger == nil {
		d.Logger = hclog.Default()
	}
	return d
}

func setDur(v *time.Duration, def time.Duration) {
	if *v == 0 {
		*v = def
	}
}

// raftConfig builds the hashicorp/raft config from a defaulted Config.
func (c *Config) raftConfig(logger hclog.Logger) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(c.SelfID)
	rc.HeartbeatTimeout = c.HeartbeatTimeout
	rc.ElectionTimeout = c.ElectionTimeout
	rc.LeaderLeaseTimeout = c.LeaderLeaseTimeout
	rc.CommitTimeout = c.CommitTimeout
	rc.SnapshotThreshold = c.SnapshotThreshold
	rc.SnapshotInterval = c.SnapshotInterval
	rc.TrailingLogs = c.TrailingLogs
	// Group commit: concurrent Applies (the Controller runs the tasks of
	// different broker sets at once) are queued without a hand-off to the
	// leader loop, which stores up to MaxAppendEntries of them with one
	// StoreLogs (one fsync'd bbolt commit); a follower stores each
	// AppendEntries RPC of up to as many entries with one commit.
	rc.BatchApplyCh = true
	rc.MaxAppendEntries = maxAppendEntries
	rc.Logger = logger
	return rc
}

// configuration is the bootstrap membership: every peer a voter.
func (c *Config) configuration() raft.Configuration {
	servers := make([]raft.Server, 0, len(c.Peers))
	for _, p := range c.Peers {
		servers = append(servers, raft.Server{
			Suffrage: raft.Voter,
			ID:       raft.ServerID(p.ID),
			Address:  raft.ServerAddress(p.RaftAddr),
		})
	}
	return raft.Configuration{Servers: servers}
}

// selfAddr is the configured RaftAddr of SelfID ("" if absent).
func (c *Config) selfAddr() string {
	for _, p := range c.Peers {
		if p.ID == c.SelfID {
			return p.RaftAddr
		}
	}
	return ""
}

func isHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	return err == nil && port != ""
}
