package config

import "time"

// Warmup holds our warm-up forwarding keys (Java has no equivalent: a
// restarted Java NameServer answers TOPIC_NOT_EXIST until the brokers
// register again, every registerNameServerPeriod, 30 s by default). For
// WarmupForwardSeconds after start, a route lookup this node would answer
// TOPIC_NOT_EXIST is asked of the other NameServers listed in
// WarmupForwardPeers, and the first SUCCESS answer is returned. Off when
// WarmupForwardPeers is empty.
type Warmup struct {
	// WarmupForwardPeers is a "host:port;host:port" list of the other
	// NameServers; an entry naming this node is ignored.
	WarmupForwardPeers string `prop:"warmupForwardPeers"`
	// WarmupForwardSeconds is how long after start lookups are forwarded.
	WarmupForwardSeconds int `prop:"warmupForwardSeconds"`
}

// DefaultWarmupForwardSeconds is a little more than three broker
// registration periods (BrokerConfig.registerNameServerPeriod, 30 s).
const DefaultWarmupForwardSeconds = 90

func defaultWarmup() Warmup { return Warmup{WarmupForwardSeconds: DefaultWarmupForwardSeconds} }

// Where lookups are forwarded decides what clients are told: no remote
// update may change it (warmupForwardPeers is also protected by its suffix).
func init() {
	fixedBlackList = append(fixedBlackList, "warmupForwardPeers", "warmupForwardSeconds")
}

// WarmupEnabled reports whether lookups are forwarded after start: a peer
// list is set and the window is not zero.
func (w Warmup) WarmupEnabled() bool { return w.WarmupForwardPeers != "" && w.WarmupForwardSeconds > 0 }

// WarmupPeers parses WarmupForwardPeers (nil when empty).
func (w Warmup) WarmupPeers() ([]string, error) {
	if w.WarmupForwardPeers == "" {
		return nil, nil
	}
	return ParseNsAddrList("warmupForwardPeers", w.WarmupForwardPeers)
}

// WarmupWindow is WarmupForwardSeconds as a duration.
func (w Warmup) WarmupWindow() time.Duration {
	return time.Duration(w.WarmupForwardSeconds) * time.Second
}

// rules: every peer entry is host:port (the window's bounds are in
// numericBounds).
func (w Warmup) rules(r *rules) {
	if _, err := w.WarmupPeers(); err != nil {
		r.errs = append(r.errs, err)
	}
}
