package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Keys never changeable remotely, whatever configBlackList says: a remote
// request may not change what a node is (its id, peers, group, controller
// type, whether it embeds a controller), where it listens, how large its
// frames, files and socket buffers are, the limits that protect its memory
// and connections (queue capacities, in-flight semaphores, write-buffer
// water marks, the pending-response cap, the partial-frame budget, the idle
// timeout that closes a stuck connection), or its paths. The NameServer and
// its embedded controller share one -c file, so both refuse the whole list.
var (
	fixedBlackList = []string{
		"configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome", "controllerStorePath",
		"listenPort", "bindAddress", "frameMaxLength", "useEpollNativeSelector",
		"serverSocketSndBufSize", "serverSocketRcvBufSize", "serverSocketBacklog", "mappedFileSize",
		"metricsExporterType", "metricsPromExporterHost", "metricsPromExporterPort", "metricsGrpcExporterTarget",
		"enableControllerInNamesrv", "controllerType", "controllerDLegerGroup",
		"controllerDLegerPeers", "controllerDLegerSelfId", "controllerRaftPeers",
		"controllerRaftTlsEnable", // and its three ...Path keys by suffix
		"serverChannelMaxPendingResponseBytes", "serverPartialFrameBudgetBytes", "serverChannelMaxIdleTimeSeconds",
		"serverMaxConnections",
		"unRegisterBrokerQueueCapacity", "clientRequestThreadPoolQueueCapacity", "defaultThreadPoolQueueCapacity",
		"controllerRequestThreadPoolQueueCapacity", "serverOnewaySemaphoreValue", "serverAsyncSemaphoreValue",
		"writeBufferHighWaterMark", "writeBufferLowWaterMark",
		// side listeners' bounds (listeners.go)
		"metricsMaxConnections", "metricsReadHeaderTimeoutSeconds", "metricsReadTimeoutSeconds",
		"metricsWriteTimeoutSeconds", "metricsIdleTimeoutSeconds", "metricsMaxHeaderBytes",
		"controllerRaftMaxInboundConnections",
		// who may claim another client's address (proxy.go)
		"enableProxyProtocol", "proxyProtocolTrustedSources",
	}
	// protectedSuffixes close the CVE-2023-33246 class and its kin: no key
	// naming a file, directory, home, address, port, host or peer list can
	// be changed by an update (compared lower-cased).
	protectedSuffixes = []string{"path", "dir", "home", "port", "addr", "address", "host", "peers", "selfid"}
)

func blackListOf(configBlackList string, fixed []string) map[string]struct{} {
	m := make(map[string]struct{})
	for _, k := range fixed {
		m[k] = struct{}{}
	}
	for k := range strings.SplitSeq(configBlackList, ";") {
		if k = strings.TrimSpace(k); k != "" {
			m[k] = struct{}{}
		}
	}
	return m
}

func isBlackListed(bl map[string]struct{}, key string) bool {
	if _, ok := bl[strings.TrimSpace(key)]; ok {
		return true
	}
	lower := strings.ToLower(strings.TrimSpace(key))
	if strings.HasPrefix(lower, tlsKeyPrefix) {
		return true
	}
	return slices.ContainsFunc(protectedSuffixes, func(s string) bool {
		return strings.HasSuffix(lower, s)
	})
}

func blackListedKeys(bl map[string]struct{}, props map[string]string) []string {
	var bad []string
	for k := range props {
		if isBlackListed(bl, k) {
			bad = append(bad, k)
		}
	}
	slices.Sort(bad)
	return bad
}

// IsBlackListed reports whether UPDATE_NAMESRV_CONFIG may not change key:
// the built-in list (fixedBlackList), the configBlackList read at load time,
// and any key ending in Path, Dir, Home, Port, Addr, Address, Host, Peers or
// SelfId.
func (c *NamesrvConfig) IsBlackListed(key string) bool { return isBlackListed(c.blackList, key) }

// IsBlackListed reports whether UPDATE_CONTROLLER_CONFIG may not change key.
func (cc *ControllerConfig) IsBlackListed(key string) bool {
	return isBlackListed(cc.blackList, key)
}

// ApplyUpdate applies an UPDATE_NAMESRV_CONFIG body (Java properties text)
// to a clone and returns it; c is unchanged. As in Java: a black-listed key
// fails the whole update (ErrBlackListed); known keys are set; keys of the -c
// file are updated; other unknown keys are dropped (Java's
// Configuration.mergeIfExist). Unlike Java, a value that does not parse, or
// an update that would leave the config invalid (and so unable to restart
// once persisted), is refused with ErrRejectedUpdate naming the key.
func (c *NamesrvConfig) ApplyUpdate(text []byte) (*NamesrvConfig, error) {
	props, err := parseUpdate(text, c.blackList)
	if err != nil {
		return nil, err
	}
	n := c.Clone()
	errs := applyProps(bindings(n), props)
	mergeIfExist(n.raw, withoutControllerOnly(n, props))
	if err := checkUpdate(errs, n.Validate); err != nil {
		return nil, err
	}
	return n, nil
}

// checkUpdate joins an update's parse errors with the updated clone's
// Validate result, wrapped in ErrRejectedUpdate.
func checkUpdate(parseErrs []error, validate func() error) error {
	err := errors.Join(append(parseErrs, validate())...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRejectedUpdate, err)
	}
	return nil
}

// ApplyControllerUpdate applies an UPDATE_CONTROLLER_CONFIG body to the
// embedded controller's config with the controller's black list.
func (c *NamesrvConfig) ApplyControllerUpdate(text []byte) (*NamesrvConfig, error) {
	props, err := parseUpdate(text, c.Controller.blackList)
	if err != nil {
		return nil, err
	}
	n := c.Clone()
	errs := n.Controller.update(props)
	if err := checkUpdate(errs, n.Validate); err != nil {
		return nil, err
	}
	return n, nil
}

// ApplyUpdate applies an UPDATE_CONTROLLER_CONFIG body to a clone of a
// standalone controller's config (rules as NamesrvConfig.ApplyUpdate).
func (cc *ControllerConfig) ApplyUpdate(text []byte) (*ControllerConfig, error) {
	props, err := parseUpdate(text, cc.blackList)
	if err != nil {
		return nil, err
	}
	n := cc.Clone()
	errs := n.update(props)
	if err := checkUpdate(errs, n.Validate); err != nil {
		return nil, err
	}
	return n, nil
}

// update sets props and returns their parse errors.
func (cc *ControllerConfig) update(props map[string]string) []error {
	errs := applyProps(bindings(cc), props)
	mergeIfExist(cc.raw, props)
	cc.noteUpdated(props)
	return errs
}

func parseUpdate(text []byte, bl map[string]struct{}) (map[string]string, error) {
	props, err := parseProperties(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadProperties, err)
	}
	if bad := blackListedKeys(bl, props); len(bad) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrBlackListed, strings.Join(bad, ", "))
	}
	return props, nil
}

// withoutControllerOnly drops the keys only the controller knows: like
// Java's 318, which persists NamesrvConfig and NettyServerConfig keys only,
// a NameServer update never writes the controller's keys into the -c file.
func withoutControllerOnly(c *NamesrvConfig, props map[string]string) map[string]string {
	ctlOnly := map[string]bool{}
	for _, b := range bindings(&c.Controller) {
		ctlOnly[b.key] = true
	}
	for _, b := range bindings(c) {
		delete(ctlOnly, b.key)
	}
	out := maps.Clone(props)
	maps.DeleteFunc(out, func(k, _ string) bool { return ctlOnly[k] })
	return out
}

func mergeIfExist(raw, props map[string]string) {
	for k, v := range props {
		if _, ok := raw[k]; ok {
			raw[k] = v
		}
	}
}

// joinUnique joins errs, dropping repeated messages (a key shared by the
// NameServer and the controller is reported once).
func joinUnique(errs []error) error {
	seen := map[string]bool{}
	var out []error
	for _, e := range errs {
		if msg := e.Error(); !seen[msg] {
			seen[msg] = true
			out = append(out, e)
		}
	}
	return errors.Join(out...)
}
