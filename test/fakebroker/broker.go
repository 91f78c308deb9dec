package fakebroker

import (
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Defaults of Config.
const (
	DefaultCluster    = "DefaultCluster"
	DefaultBrokerName = "broker-a"
)

// Config describes a fake broker. Zero values take the defaults.
type Config struct {
	ClusterName string // default DefaultCluster
	BrokerName  string // default DefaultBrokerName
	BrokerID    int64  // 0 = master
	// NameServers are the "host:port" addresses RegisterAll and
	// UnregisterAll talk to.
	NameServers []string
	// Topics are the broker's own topics (see Topic). Unless NoSystemTopics
	// is set, the broker also registers the system topics a Java broker
	// always has (its cluster name, its broker name, SELF_TEST_TOPIC and
	// rmq_sys_SYNC_BROKER_MEMBER_<brokerName>), which also keeps a first
	// registration clear of the NameServer's single-topic guard.
	Topics         []wire.TopicConfig
	NoSystemTopics bool
	// EnableActingMaster is sent as ext enableActingMaster (always present,
	// as from a 5.x broker).
	EnableActingMaster bool
	// HeartbeatTimeoutMillis, when > 0, is sent as ext
	// heartbeatTimeoutMillis (Java: only with enableSlaveActingMaster).
	HeartbeatTimeoutMillis int64
	// ZoneName, when set, is sent as ext __ZONE_NAME.
	ZoneName string
	// Version is the remoting version of requests; 0 = 479 (5.3.3).
	Version int32
	// Logger receives the broker's logs; nil discards them.
	Logger hclog.Logger
	// Sign, if set, signs every request to a NameServer (e.g. acl.Sign
	// with a broker account, as a Java broker's AclClientRPCHook does).
	Sign func(*remoting.Command)
	// RuntimeInfo is the GET_BROKER_RUNTIME_INFO (28) table
	// (AdminBrokerProcessor.prepareRuntimeInfo's keys); nil answers
	// REQUEST_CODE_NOT_SUPPORTED.
	RuntimeInfo map[string]string
	// ConnHooks run on the broker's listener (a TLS sniff: clients that
	// speak TLS to brokers).
	ConnHooks []remoting.ConnHook
	// TLS, when set, makes the broker's connections to NameServers TLS.
	TLS *tls.Config
}

// Topic returns a read-write topic config with the given number of read
// and write queues, as `mqadmin updateTopic` creates it.
func Topic(name string, queues int32) wire.TopicConfig {
	return wire.TopicConfig{
		TopicName: name, ReadQueueNums: queues, WriteQueueNums: queues,
		Perm: wire.PermRead | wire.PermWrite, TopicFilterType: "SINGLE_TAG",
		Attributes: map[string]string{},
	}
}

// Broker is a running fake broker. All methods are safe for concurrent use.
type Broker struct {
	cfg  Config
	log  hclog.Logger
	srv  *remoting.Server
	addr string
	port int

	mu      sync.Mutex
	topics  map[string]wire.TopicConfig
	dv      wire.DataVersion
	clients map[string]*remoting.Client
	offsets map[string]int64 // "topic/queueId" -> next queue offset
	commit  int64            // next commit log offset
	closed  bool

	messages journal[Message]
	requests journal[*remoting.Command]
}

// New starts a fake broker on 127.0.0.1 with an ephemeral port. It does not
// register anywhere until RegisterAll or Register is called.
func New(cfg Config) (*Broker, error) {
	cfg = withDefaults(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakebroker: listen: %w", err)
	}
	b := &Broker{
		cfg: cfg, log: cfg.Logger, addr: ln.Addr().String(),
		port:    ln.Addr().(*net.TCPAddr).Port,
		clients: map[string]*remoting.Client{},
		offsets: map[string]int64{},
		dv:      wire.DataVersion{Counter: 1, Timestamp: time.Now().UnixMilli()},
	}
	b.topics = b.initialTopics()
	b.srv = remoting.NewServer(remoting.ServerConfig{Logger: cfg.Logger.Named("server"), ConnHooks: cfg.ConnHooks})
	b.registerHandlers()
	go func() {
		if err := b.srv.Serve(ln); err != nil {
			b.log.Warn("serve ended", "error", err)
		}
	}()
	return b, nil
}

func withDefaults(cfg Config) Config {
	if cfg.ClusterName == "" {
		cfg.ClusterName = DefaultCluster
	}
	if cfg.BrokerName == "" {
		cfg.BrokerName = DefaultBrokerName
	}
	if cfg.Version == 0 {
		cfg.Version = remoting.CurrentVersion
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	return cfg
}

// initialTopics is the system topics (unless disabled) plus cfg.Topics.
func (b *Broker) initialTopics() map[string]wire.TopicConfig {
	m := map[string]wire.TopicConfig{}
	if !b.cfg.NoSystemTopics {
		for _, tc := range systemTopics(b.cfg.ClusterName, b.cfg.BrokerName) {
			m[tc.TopicName] = tc
		}
	}
	for _, tc := range b.cfg.Topics {
		m[tc.TopicName] = tc
	}
	return m
}

// systemTopics are topics every Java broker registers (TopicConfigManager).
func systemTopics(cluster, name string) []wire.TopicConfig {
	sys := func(topic string, perm int32) wire.TopicConfig {
		tc := Topic(topic, 1)
		tc.Perm = perm
		return tc
	}
	const rwi = wire.PermRead | wire.PermWrite | wire.PermInherit
	return []wire.TopicConfig{
		sys(cluster, rwi),
		sys(name, rwi),
		sys("SELF_TEST_TOPIC", wire.PermRead|wire.PermWrite),
		sys("rmq_sys_SYNC_BROKER_MEMBER_"+name, wire.PermInherit),
	}
}

// Addr is the broker's "127.0.0.1:port", its brokerAddr.
func (b *Broker) Addr() string { return b.addr }

// HAAddr is the haServerAddr the broker announces (port+1, never served).
func (b *Broker) HAAddr() string { return "127.0.0.1:" + strconv.Itoa(b.port+1) }

// ClusterName is the broker's cluster.
func (b *Broker) ClusterName() string { return b.cfg.ClusterName }

// BrokerName is the broker's group name.
func (b *Broker) BrokerName() string { return b.cfg.BrokerName }

// BrokerID is the broker's id (0 = master).
func (b *Broker) BrokerID() int64 { return b.cfg.BrokerID }

// DataVersion is the broker's current topic-config version.
func (b *Broker) DataVersion() wire.DataVersion {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dv
}

// TopicConfigs returns a copy of the topics the broker registers.
func (b *Broker) TopicConfigs() map[string]wire.TopicConfig {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.topics)
}

// SetTopic adds or replaces a topic and bumps the DataVersion, as a broker
// does when a topic is created or updated.
func (b *Broker) SetTopic(tc wire.TopicConfig) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.topics[tc.TopicName] = tc
	b.nextVersionLocked()
}

// RemoveTopic deletes a topic and bumps the DataVersion.
func (b *Broker) RemoveTopic(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.topics, name)
	b.nextVersionLocked()
}

// BumpDataVersion advances the DataVersion without changing topics
// (DataVersion.nextVersion: counter+1, timestamp now).
func (b *Broker) BumpDataVersion() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextVersionLocked()
}

// SetStateVersion sets the DataVersion's stateVersion (the controller
// master epoch of a 5.x broker in controller mode).
func (b *Broker) SetStateVersion(v int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dv.StateVersion = v
}

func (b *Broker) nextVersionLocked() {
	b.dv.Counter++
	b.dv.Timestamp = max(time.Now().UnixMilli(), b.dv.Timestamp+1)
}

// Close closes the NameServer connections and the broker's listener and
// connections. It does not unregister (a crashed broker); call
// UnregisterAll first for a clean shutdown.
func (b *Broker) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	clients := b.clients
	b.clients = map[string]*remoting.Client{}
	b.mu.Unlock()
	var errs []error
	for _, c := range clients {
		errs = append(errs, c.Close())
	}
	errs = append(errs, b.srv.Close())
	return errors.Join(errs...)
}

// TopicConfig is wire.TopicConfig, so callers need not import namesrv/wire.
type TopicConfig = wire.TopicConfig
