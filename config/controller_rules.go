package config

import (
	"maps"
	"os"
	"slices"
	"strings"
)

// MaxElectMasterMaxRetryCount bounds electMasterMaxRetryCount (Java's
// ControllerConfig takes any int; its default is 3). Each failed attempt of
// a controller-triggered election can append a "no master" entry, so the
// bound also bounds the log entries one lost master costs.
const MaxElectMasterMaxRetryCount = 100

// Validate reports every broken rule of a standalone controller's config at
// once: parse errors, its NettyServerConfig, and the controller rules (see
// ruleErrors). Its remoting listen address is its own controllerDLegerPeers
// entry.
func (cc *ControllerConfig) Validate() error {
	r := &rules{}
	cc.NettyServer.rules(r)
	cc.ACL.rules(r)
	r.errs = append(r.errs, cc.ruleErrors("")...)
	return joinUnique(r.errs)
}

// ruleErrors checks the controller keys: parse errors, every numeric key
// within its bounds (numericBounds), both peer lists present and parsable
// with the same ids, the self id among them, no peer's remoting address colliding with its Raft
// address, neither self address colliding with namesrvAddr (if not empty),
// a creatable, writable controllerStorePath, the controllerRaftTls*
// files when controllerRaftTlsEnable=true (raftTLSRules), and
// controllerAccessKey's account when aclEnable=true.
func (cc *ControllerConfig) ruleErrors(namesrvAddr string) []error {
	r := &rules{errs: slices.Clone(cc.loadErrs)}
	cc.numberRules(r)
	cc.peerRules(r, namesrvAddr)
	cc.storeRules(r)
	cc.raftTLSRules(r)
	cc.ControllerAccess.rules(r, cc.ACL)
	return r.errs
}

func (cc *ControllerConfig) numberRules(r *rules) {
	boundRules(r, bindings(cc))
	r.metricsType(cc.MetricsExporterType)
}

func (cc *ControllerConfig) peerRules(r *rules, namesrvAddr string) {
	remoting, err1 := cc.DLegerPeers()
	raft, err2 := cc.RaftPeers()
	for _, err := range []error{err1, err2} {
		if err != nil {
			r.errs = append(r.errs, err)
		}
	}
	cc.selfRules(r, remoting, raft)
	if err1 == nil && err2 == nil {
		pairRules(r, remoting, raft)
	}
	cc.namesrvCollisions(r, namesrvAddr)
}

func (cc *ControllerConfig) selfRules(r *rules, remoting, raft []Peer) {
	self := cc.ControllerDLegerSelfId
	if strings.TrimSpace(self) == "" {
		r.addf("controllerDLegerSelfId is missing")
		return
	}
	if remoting != nil && !hasID(remoting, self) {
		r.addf("controllerDLegerSelfId (%s) is not an id of controllerDLegerPeers (%s)", self, cc.ControllerDLegerPeers)
	}
	if raft != nil && !hasID(raft, self) {
		r.addf("controllerDLegerSelfId (%s) is not an id of controllerRaftPeers (%s)", self, cc.ControllerRaftPeers)
	}
}

// pairRules checks that both lists name the same ids and that no peer uses
// one address for both its remoting server and its Raft transport.
func pairRules(r *rules, remoting, raft []Peer) {
	a, b := peerMap(remoting), peerMap(raft)
	if ka, kb := slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)); !slices.Equal(ka, kb) {
		r.addf("controllerRaftPeers ids (%s) differ from controllerDLegerPeers ids (%s)",
			strings.Join(kb, ","), strings.Join(ka, ","))
	}
	for _, p := range remoting {
		if raftAddr, ok := b[p.ID]; ok && collides(p.Addr, raftAddr) {
			r.addf("controllerRaftPeers: %s's raft address %s collides with its controllerDLegerPeers address %s",
				p.ID, raftAddr, p.Addr)
		}
	}
}

func (cc *ControllerConfig) namesrvCollisions(r *rules, namesrvAddr string) {
	if namesrvAddr == "" {
		return
	}
	if a := cc.SelfRemotingAddr(); a != "" && collides(a, namesrvAddr) {
		r.addf("controllerDLegerPeers: self address %s collides with the NameServer listen address %s", a, namesrvAddr)
	}
	if a := cc.SelfRaftAddr(); a != "" && collides(a, namesrvAddr) {
		r.addf("controllerRaftPeers: self address %s collides with the NameServer listen address %s", a, namesrvAddr)
	}
}

func (cc *ControllerConfig) storeRules(r *rules) {
	dir := cc.ControllerStorePath
	if strings.TrimSpace(dir) == "" {
		r.addf("controllerStorePath must not be empty")
		return
	}
	if err := checkWritableDir(dir); err != nil {
		r.addf("controllerStorePath (%s) is not a creatable, writable directory: %v", dir, err)
	}
}

func checkWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	cerr := f.Close()
	if err := os.Remove(name); err != nil {
		return err
	}
	return cerr
}

func hasID(peers []Peer, id string) bool {
	return slices.ContainsFunc(peers, func(p Peer) bool { return p.ID == id })
}

func peerMap(peers []Peer) map[string]string {
	m := make(map[string]string, len(peers))
	for _, p := range peers {
		m[p.ID] = p.Addr
	}
	return m
}
