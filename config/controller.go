package config

import (
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ControllerConfig holds Java's ControllerConfig keys plus our
// controllerRaftPeers, and the controller's own NettyServerConfig (for the
// embedded controller a copy of the NameServer's, as Java clones it).
type ControllerConfig struct {
	RocketmqHome                             string `prop:"rocketmqHome"`
	ConfigStorePath                          string `prop:"configStorePath"`
	ControllerType                           string `prop:"controllerType"`
	ScanNotActiveBrokerInterval              int64  `prop:"scanNotActiveBrokerInterval"` // ms
	ControllerThreadPoolNums                 int    `prop:"controllerThreadPoolNums"`
	ControllerRequestThreadPoolQueueCapacity int    `prop:"controllerRequestThreadPoolQueueCapacity"`
	ControllerDLegerGroup                    string `prop:"controllerDLegerGroup,omitempty"`
	// ControllerDLegerPeers lists the controllers' broker-facing remoting
	// addresses: "n0-127.0.0.1:9878;n1-127.0.0.1:9868".
	ControllerDLegerPeers  string `prop:"controllerDLegerPeers,omitempty"`
	ControllerDLegerSelfId string `prop:"controllerDLegerSelfId,omitempty"`
	MappedFileSize         int    `prop:"mappedFileSize"`
	// ControllerStorePath: "" resolves to ${HOME}/<controllerType>Controller.
	ControllerStorePath        string `prop:"controllerStorePath"`
	ElectMasterMaxRetryCount   int    `prop:"electMasterMaxRetryCount"`
	EnableElectUncleanMaster   bool   `prop:"enableElectUncleanMaster"`
	ProcessReadEvent           bool   `prop:"processReadEvent,render=isProcessReadEvent"`
	NotifyBrokerRoleChanged    bool   `prop:"notifyBrokerRoleChanged"`
	ScanInactiveMasterInterval int64  `prop:"scanInactiveMasterInterval"` // ms

	MetricsExporterType                  string `prop:"metricsExporterType"`
	MetricsGrpcExporterTarget            string `prop:"metricsGrpcExporterTarget"`
	MetricsGrpcExporterHeader            string `prop:"metricsGrpcExporterHeader"`
	MetricGrpcExporterTimeOutInMills     int64  `prop:"metricGrpcExporterTimeOutInMills"`
	MetricGrpcExporterIntervalInMills    int64  `prop:"metricGrpcExporterIntervalInMills"`
	MetricLoggingExporterIntervalInMills int64  `prop:"metricLoggingExporterIntervalInMills"`
	MetricsPromExporterPort              int    `prop:"metricsPromExporterPort"`
	MetricsPromExporterHost              string `prop:"metricsPromExporterHost"`
	MetricsLabel                         string `prop:"metricsLabel"`
	MetricsInDelta                       bool   `prop:"metricsInDelta"`
	ConfigBlackList                      string `prop:"configBlackList"`

	// ControllerRaftPeers (ours) lists the controllers' Raft transport
	// addresses, same ids and form as ControllerDLegerPeers.
	ControllerRaftPeers string `prop:"controllerRaftPeers,omitempty"`

	RaftTLS // controllerRaftTls*: controller_raft_tls.go

	RaftInbound // controllerRaftMaxInboundConnections: listeners.go

	// StateBounds: bounds on the replicated state (controller_state.go).
	StateBounds

	NettyServer

	// ACL: request signatures and roles (config/acl.go).
	ACL

	// ControllerAccess: controllerAccessKey (controller_access.go).
	ControllerAccess

	raw       map[string]string
	blackList map[string]struct{}
	loadErrs  []error
	bare      map[string]bareLine // the -c file's lines with no separator (Unread)
	// ownFile: updates persist to configStorePath as an overlay holding
	// only the updated keys (the embedded controller's own file, or a
	// standalone controller's configStorePath other than its -c file).
	ownFile bool
	updated map[string]string // keys set by accepted updates
}

// Peer is one entry of a peers list: "<ID>-<Addr>".
type Peer struct {
	ID, Addr string
}

func controllerDefaults(port int) *ControllerConfig {
	return &ControllerConfig{
		ConfigStorePath:                          filepath.Join(homeDir(), "controller", "controller.properties"),
		ControllerType:                           "DLedger",
		ScanNotActiveBrokerInterval:              5000,
		ControllerThreadPoolNums:                 16,
		ControllerRequestThreadPoolQueueCapacity: 50000,
		MappedFileSize:                           1 << 30,
		ElectMasterMaxRetryCount:                 3,
		NotifyBrokerRoleChanged:                  true,
		ScanInactiveMasterInterval:               5000,
		MetricsExporterType:                      "DISABLE",
		MetricGrpcExporterTimeOutInMills:         3000,
		MetricGrpcExporterIntervalInMills:        60000,
		MetricLoggingExporterIntervalInMills:     10000,
		MetricsPromExporterPort:                  5557,
		ConfigBlackList:                          "configBlackList;configStorePath",
		StateBounds:                              defaultStateBounds(),
		NettyServer:                              defaultNettyServer(port),
		ACL:                                      defaultACL(),
		RaftInbound:                              defaultRaftInbound(),
		raw:                                      map[string]string{},
		ownFile:                                  true,
	}
}

// LoadController reads the properties file of a standalone controller
// (Java's mqcontroller -c). listenPort defaults to 19876 but, as with
// DLedger, the effective remoting address is the self entry of
// controllerDLegerPeers (SelfRemotingAddr). When configStorePath is not the
// -c file, the updates persisted there are applied over it (loadOwnFile);
// when it is, updates rewrite the -c file whole.
func LoadController(path string) (*ControllerConfig, error) { return loadController(path, nil) }

// loadController is LoadController with over (environment properties)
// applied over the -c file.
func loadController(path string, over map[string]string) (*ControllerConfig, error) {
	props, bare, err := readPropertiesLines(path)
	if err != nil {
		return nil, err
	}
	maps.Copy(props, over)
	cc := controllerDefaults(19876)
	cc.applyFile(props)
	cc.bare = bare
	cc.ACL.resolve(filepath.Dir(path))
	cc.finish()
	if cc.ownFile = !sameFile(cc.ConfigStorePath, path); cc.ownFile {
		if err := cc.loadOwnFile(""); err != nil {
			return nil, err
		}
	}
	return cc, nil
}

func (cc *ControllerConfig) applyFile(props map[string]string) {
	cc.raw = maps.Clone(props)
	cc.loadErrs = applyProps(bindings(cc), props)
}

func (cc *ControllerConfig) finish() {
	if cc.ControllerStorePath == "" {
		cc.ControllerStorePath = filepath.Join(homeDir(), cc.ControllerType+"Controller")
	}
	cc.blackList = blackListOf(cc.ConfigBlackList, fixedBlackList)
	cc.ACL.resolve(filepath.Dir(cc.ConfigStorePath))
}

// Clone returns a deep copy.
func (cc *ControllerConfig) Clone() *ControllerConfig {
	n := *cc
	n.raw = maps.Clone(cc.raw)
	n.blackList = maps.Clone(cc.blackList)
	n.loadErrs = slices.Clone(cc.loadErrs)
	n.updated = maps.Clone(cc.updated)
	return &n
}

// SelfRemotingAddr returns this controller's broker-facing address: its own
// entry of controllerDLegerPeers, "" if absent or unparsable.
func (cc *ControllerConfig) SelfRemotingAddr() string {
	return selfAddr("controllerDLegerPeers", cc.ControllerDLegerPeers, cc.ControllerDLegerSelfId)
}

// SelfRaftAddr returns this controller's Raft transport address: its own
// entry of controllerRaftPeers, "" if absent or unparsable.
func (cc *ControllerConfig) SelfRaftAddr() string {
	return selfAddr("controllerRaftPeers", cc.ControllerRaftPeers, cc.ControllerDLegerSelfId)
}

// DLegerPeers parses controllerDLegerPeers.
func (cc *ControllerConfig) DLegerPeers() ([]Peer, error) {
	return ParsePeers("controllerDLegerPeers", cc.ControllerDLegerPeers)
}

// RaftPeers parses controllerRaftPeers.
func (cc *ControllerConfig) RaftPeers() ([]Peer, error) {
	return ParsePeers("controllerRaftPeers", cc.ControllerRaftPeers)
}

func selfAddr(key, list, self string) string {
	peers, err := ParsePeers(key, list)
	if err != nil {
		return ""
	}
	for _, p := range peers {
		if p.ID == self {
			return p.Addr
		}
	}
	return ""
}

// ParsePeers parses "id-host:port;id-host:port" (DLedger's form; the id ends
// at the first '-'). Empty segments are skipped. key names the property in
// errors, which wrap ErrInvalid. An empty list is an error.
func ParsePeers(key, s string) ([]Peer, error) {
	var peers []Peer
	seen := map[string]bool{}
	for seg := range strings.SplitSeq(s, ";") {
		seg = strings.TrimSpace(seg)
		if seg == "" {
			continue
		}
		p, err := parsePeer(key, seg)
		if err != nil {
			return nil, err
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("%w: %s (%s) lists id %q twice", ErrInvalid, key, s, p.ID)
		}
		seen[p.ID] = true
		peers = append(peers, p)
	}
	if len(peers) == 0 {
		return nil, fmt.Errorf("%w: %s is missing (want id-host:port;...)", ErrInvalid, key)
	}
	return peers, nil
}

func parsePeer(key, seg string) (Peer, error) {
	id, addr, ok := strings.Cut(seg, "-")
	if !ok || id == "" {
		return Peer{}, fmt.Errorf("%w: %s entry %q is not id-host:port", ErrInvalid, key, seg)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return Peer{}, fmt.Errorf("%w: %s entry %q has no valid host:port", ErrInvalid, key, seg)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Peer{}, fmt.Errorf("%w: %s entry %q has port %q outside 1..65535", ErrInvalid, key, seg, port)
	}
	return Peer{ID: id, Addr: addr}, nil
}
