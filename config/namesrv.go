package config

import (
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
)

// MiB is one mebibyte.
const MiB = 1 << 20

// NettyServer holds Java's NettyServerConfig keys (shown by both
// GET_NAMESRV_CONFIG and GET_CONTROLLER_CONFIG).
type NettyServer struct {
	BindAddress                        string `prop:"bindAddress"`
	ListenPort                         int    `prop:"listenPort"`
	ServerWorkerThreads                int    `prop:"serverWorkerThreads"`
	ServerCallbackExecutorThreads      int    `prop:"serverCallbackExecutorThreads"`
	ServerSelectorThreads              int    `prop:"serverSelectorThreads"`
	ServerOnewaySemaphoreValue         int    `prop:"serverOnewaySemaphoreValue"`
	ServerAsyncSemaphoreValue          int    `prop:"serverAsyncSemaphoreValue"`
	ServerChannelMaxIdleTimeSeconds    int    `prop:"serverChannelMaxIdleTimeSeconds"`
	ServerSocketSndBufSize             int    `prop:"serverSocketSndBufSize"`
	ServerSocketRcvBufSize             int    `prop:"serverSocketRcvBufSize"`
	WriteBufferHighWaterMark           int    `prop:"writeBufferHighWaterMark"`
	WriteBufferLowWaterMark            int    `prop:"writeBufferLowWaterMark"`
	ServerSocketBacklog                int    `prop:"serverSocketBacklog"`
	ServerNettyWorkerGroupEnable       bool   `prop:"serverNettyWorkerGroupEnable"`
	ServerPooledByteBufAllocatorEnable bool   `prop:"serverPooledByteBufAllocatorEnable"`
	EnableShutdownGracefully           bool   `prop:"enableShutdownGracefully"`
	ShutdownWaitTimeSeconds            int    `prop:"shutdownWaitTimeSeconds"`
	UseEpollNativeSelector             bool   `prop:"useEpollNativeSelector"`

	// ProxyProtocol holds our PROXY protocol keys (see proxy.go).
	ProxyProtocol

	// MetricsListener bounds the metrics/HTTP endpoint (listeners.go).
	MetricsListener
}

// NamesrvConfig is the whole NameServer configuration: Java's
// NamesrvConfig and NettyServerConfig keys, our extras, and the embedded
// controller's ControllerConfig (filled from the same file, as Java does).
type NamesrvConfig struct {
	RocketmqHome                         string `prop:"rocketmqHome"`
	KVConfigPath                         string `prop:"kvConfigPath"`
	ConfigStorePath                      string `prop:"configStorePath"`
	ProductEnvName                       string `prop:"productEnvName"`
	ClusterTest                          bool   `prop:"clusterTest"`
	OrderMessageEnable                   bool   `prop:"orderMessageEnable"`
	ReturnOrderTopicConfigToBroker       bool   `prop:"returnOrderTopicConfigToBroker"`
	ClientRequestThreadPoolNums          int    `prop:"clientRequestThreadPoolNums"`
	ClientRequestThreadPoolQueueCapacity int    `prop:"clientRequestThreadPoolQueueCapacity"`
	DefaultThreadPoolNums                int    `prop:"defaultThreadPoolNums"`
	DefaultThreadPoolQueueCapacity       int    `prop:"defaultThreadPoolQueueCapacity"`
	ScanNotActiveBrokerInterval          int64  `prop:"scanNotActiveBrokerInterval"` // ms
	UnRegisterBrokerQueueCapacity        int    `prop:"unRegisterBrokerQueueCapacity"`
	SupportActingMaster                  bool   `prop:"supportActingMaster"`
	EnableAllTopicList                   bool   `prop:"enableAllTopicList"`
	EnableTopicList                      bool   `prop:"enableTopicList"`
	NotifyMinBrokerIdChanged             bool   `prop:"notifyMinBrokerIdChanged"`
	EnableControllerInNamesrv            bool   `prop:"enableControllerInNamesrv"`
	NeedWaitForService                   bool   `prop:"needWaitForService"`
	WaitSecondsForService                int    `prop:"waitSecondsForService"`
	DeleteTopicWithBrokerRegistration    bool   `prop:"deleteTopicWithBrokerRegistration"`
	ConfigBlackList                      string `prop:"configBlackList"`

	NettyServer

	// ACL: request signatures and roles (config/acl.go).
	ACL

	// Our extras.

	// FrameMaxLength caps one remoting frame (Java: 16 MiB, too small for
	// registrations of 60-70k topics).
	FrameMaxLength int `prop:"frameMaxLength"`
	// ServerChannelMaxPendingResponseBytes caps the response bytes queued
	// on one connection; over it the connection is not read until they are
	// written (a client that never reads is closed after
	// serverChannelMaxIdleTimeSeconds).
	ServerChannelMaxPendingResponseBytes int64 `prop:"serverChannelMaxPendingResponseBytes"`
	// ServerPartialFrameBudgetBytes caps the bytes reserved, across all
	// connections, by frames over 64 KiB while their bodies arrive.
	ServerPartialFrameBudgetBytes int64 `prop:"serverPartialFrameBudgetBytes"`
	// ServerMaxConnections caps the open remoting connections; one accepted
	// over it is closed at once.
	ServerMaxConnections int `prop:"serverMaxConnections"`
	// MetricsExporterType: "PROM" serves Prometheus metrics; "" and
	// DISABLE serve none; Java's OTLP_GRPC and LOG are refused by Validate.
	MetricsExporterType string `prop:"metricsExporterType"`
	// MetricsPromExporterHost is the metrics bind host; "" = bindAddress.
	MetricsPromExporterHost string `prop:"metricsPromExporterHost"`
	// MetricsPromExporterPort is the metrics port (Java ControllerConfig's 5557).
	MetricsPromExporterPort int `prop:"metricsPromExporterPort"`
	// ReadyAfterBrokerRegistrationSeconds delays readiness after start.
	ReadyAfterBrokerRegistrationSeconds int `prop:"readyAfterBrokerRegistrationSeconds"`

	// AddrService: the NameServer list served to clients by domain (nsaddr.go).
	AddrService

	// Warmup: lookups forwarded to peers after a restart (warmup.go).
	Warmup

	// Controller is the embedded controller's config, filled from the same
	// file; only used when EnableControllerInNamesrv is true.
	Controller ControllerConfig `prop:"-"`

	raw       map[string]string   // every property of the -c file, as read
	blackList map[string]struct{} // fixed at load time
	loadErrs  []error             // per-key parse errors, reported by Validate
	bare      map[string]bareLine // the -c file's lines with no separator (Unread)
}

func defaultNettyServer(port int) NettyServer {
	return NettyServer{
		BindAddress:                        "0.0.0.0",
		ListenPort:                         port,
		ServerWorkerThreads:                8,
		ServerSelectorThreads:              3,
		ServerOnewaySemaphoreValue:         256,
		ServerAsyncSemaphoreValue:          64,
		ServerChannelMaxIdleTimeSeconds:    120,
		ServerSocketBacklog:                1024,
		ServerNettyWorkerGroupEnable:       true,
		ServerPooledByteBufAllocatorEnable: true,
		ShutdownWaitTimeSeconds:            30,
		MetricsListener:                    defaultMetricsListener(),
	}
}

// defaults returns Java's defaults before any file is applied and before
// derived values (controllerStorePath, black list) are resolved.
func defaults() *NamesrvConfig {
	home := homeDir()
	return &NamesrvConfig{
		RocketmqHome:                         os.Getenv("ROCKETMQ_HOME"),
		KVConfigPath:                         filepath.Join(home, "namesrv", "kvConfig.json"),
		ConfigStorePath:                      filepath.Join(home, "namesrv", "namesrv.properties"),
		ProductEnvName:                       "center",
		ReturnOrderTopicConfigToBroker:       true,
		ClientRequestThreadPoolNums:          8,
		ClientRequestThreadPoolQueueCapacity: 50000,
		DefaultThreadPoolNums:                16,
		DefaultThreadPoolQueueCapacity:       10000,
		ScanNotActiveBrokerInterval:          5000,
		UnRegisterBrokerQueueCapacity:        3000,
		EnableAllTopicList:                   true,
		EnableTopicList:                      true,
		WaitSecondsForService:                45,
		ConfigBlackList:                      "configBlackList;configStorePath;kvConfigPath",
		NettyServer:                          defaultNettyServer(9876),
		FrameMaxLength:                       64 * MiB,
		ServerChannelMaxPendingResponseBytes: 4 * MiB,
		ServerPartialFrameBudgetBytes:        256 * MiB,
		ServerMaxConnections:                 10000,
		MetricsPromExporterPort:              5557,
		Controller:                           *controllerDefaults(9876),
		ACL:                                  defaultACL(),
		Warmup:                               defaultWarmup(),
		raw:                                  map[string]string{},
	}
}

// homeDir is Java's user.home; "." if it cannot be determined.
func homeDir() string {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return h
	}
	return "."
}

// Default returns the configuration of a NameServer started without -c.
// Unlike Java, rocketmqHome (env ROCKETMQ_HOME) is not required.
func Default() *NamesrvConfig {
	c := defaults()
	c.finish()
	return c
}

// Load reads a Java .properties file (mqnamesrv -c) and applies its keys by
// exact property name to the NameServer and (as Java does when
// enableControllerInNamesrv is set) to the controller config, so a key both
// know (scanNotActiveBrokerInterval, configStorePath, ...) sets both. Unknown
// keys are kept and shown by Render. As in Java, configStorePath becomes the
// -c path whatever the file says. Per-key parse errors (listenPort=abc) do
// not fail Load; Validate reports them.
func Load(path string) (*NamesrvConfig, error) { return load(path, nil) }

// load is Load with over (environment properties) applied over the file.
func load(path string, over map[string]string) (*NamesrvConfig, error) {
	props, bare, err := readPropertiesLines(path)
	if err != nil {
		return nil, err
	}
	maps.Copy(props, over)
	c := defaults()
	c.raw = props
	c.bare = bare
	c.loadErrs = applyProps(bindings(c), props)
	c.Controller.applyFile(props)
	c.ConfigStorePath = path
	c.Controller.ConfigStorePath = embeddedControllerPath(path)
	c.finish()
	if err := c.Controller.loadOwnFile(legacyControllerPath(path)); err != nil {
		return nil, err
	}
	return c, nil
}

// finish resolves derived values once all keys are applied.
func (c *NamesrvConfig) finish() {
	c.Controller.finish()
	c.blackList = blackListOf(c.ConfigBlackList, fixedBlackList)
	c.ACL.resolve(filepath.Dir(c.ConfigStorePath))
	c.Controller.ACL = c.ACL // the embedded controller checks as its NameServer does
}

// ListenAddr returns bindAddress:listenPort.
func (c *NamesrvConfig) ListenAddr() string {
	return net.JoinHostPort(c.BindAddress, strconv.Itoa(c.ListenPort))
}

// MetricsAddr returns the Prometheus listen address (host defaults to
// bindAddress).
func (c *NamesrvConfig) MetricsAddr() string {
	host := c.MetricsPromExporterHost
	if host == "" {
		host = c.BindAddress
	}
	return net.JoinHostPort(host, strconv.Itoa(c.MetricsPromExporterPort))
}

// PromMetricsEnabled reports whether metricsExporterType is PROM.
func (c *NamesrvConfig) PromMetricsEnabled() bool { return c.MetricsExporterType == "PROM" }

// RawProperties returns a copy of the properties read from the -c file.
func (c *NamesrvConfig) RawProperties() map[string]string { return maps.Clone(c.raw) }

// Clone returns a deep copy.
func (c *NamesrvConfig) Clone() *NamesrvConfig {
	n := *c
	n.raw = maps.Clone(c.raw)
	n.blackList = maps.Clone(c.blackList)
	n.loadErrs = slices.Clone(c.loadErrs)
	n.Controller = *c.Controller.Clone()
	return &n
}

// Holder publishes the live config to request handlers: Load is a lock-free
// atomic read, Store swaps in an updated clone.
type Holder struct {
	p atomic.Pointer[NamesrvConfig]
}

// NewHolder returns a Holder publishing c.
func NewHolder(c *NamesrvConfig) *Holder {
	h := &Holder{}
	h.p.Store(c)
	return h
}

// Load returns the current config; callers must not modify it.
func (h *Holder) Load() *NamesrvConfig { return h.p.Load() }

// Store publishes c.
func (h *Holder) Store(c *NamesrvConfig) { h.p.Store(c) }
