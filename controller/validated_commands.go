//go:build embedded_controller

package controller

import (
	"strconv"

	"github.com/rmqgo/nameserver/controller/wire"
)

// The parsed forms of the requests that store strings, shared by the
// leader's builders (with the configured limits) and Apply (with
// hardLimits), and the handling of entries an older version wrote.

// applyIDCmd is a parsed APPLY_BROKER_ID (1013).
type applyIDCmd struct {
	cluster clusterName
	name    brokerName
	id      int64
	code    checkCode
	addr    brokerAddr
}

// parseApplyBrokerID checks the fields in header order; the first broken
// rule is the answer (2005, naming the field).
func parseApplyBrokerID(req wire.ApplyBrokerIDRequest, lim stateLimits) (applyIDCmd, error) {
	cluster, err := parseClusterName(req.ClusterName, lim.NameLength)
	if err != nil {
		return applyIDCmd{}, err
	}
	name, err := parseBrokerName(req.BrokerName, lim.NameLength)
	if err != nil {
		return applyIDCmd{}, err
	}
	code, addr, err := parseCheckCode(req.RegisterCheckCode)
	if err != nil {
		return applyIDCmd{}, err
	}
	return applyIDCmd{cluster: cluster, name: name, id: req.AppliedBrokerID, code: code, addr: addr}, nil
}

// event is the fenced, checked event of the command.
func (c applyIDCmd) event() applyBrokerIDEvent {
	return applyBrokerIDEvent{ClusterName: string(c.cluster), BrokerName: string(c.name), BrokerAddress: string(c.addr),
		NewBrokerID: c.id, RegisterCheckCode: string(c.code), Fenced: true, Checked: true}
}

// roomForID checks the bounds an added id would pass; an idempotent retry
// (the id already held) adds nothing.
func (s *state) roomForID(c applyIDCmd, lim stateLimits) error {
	r, known := s.replicas[string(c.name)]
	if known {
		if _, used := r.Brokers[c.id]; used {
			return nil
		}
	}
	if known && s.contains(string(c.name)) {
		return s.checkRoom(lim, string(c.name), false, r, brokerCost(c.addr, c.code))
	}
	return s.checkRoom(lim, string(c.name), true, r, newSetCost(c.cluster, c.name, c.addr, c.code))
}

// check is Apply's boundary for a checked applyBrokerIDEvent: the event
// parses as its request would, with the hard ceilings.
func (e applyBrokerIDEvent) check(s *state) error {
	c, err := parseApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: e.ClusterName, BrokerName: e.BrokerName,
		AppliedBrokerID: e.NewBrokerID, RegisterCheckCode: e.RegisterCheckCode}, hardLimits)
	if err == nil && string(c.addr) != e.BrokerAddress {
		err = invalidField("brokerAddress", "must be the address of the registerCheckCode")
	}
	if err == nil {
		err = s.roomForID(c, hardLimits)
	}
	return err
}

// check is Apply's boundary for a checked updateBrokerAddressEvent.
func (e updateBrokerAddressEvent) check(s *state) error {
	addr, err := parseAddr("brokerAddress", e.BrokerAddress)
	if err != nil {
		return err
	}
	return s.roomForAddr(e.BrokerName, e.BrokerID, addr, hardLimits)
}

// roomForAddr checks the bounds a changed address would pass.
func (s *state) roomForAddr(name string, id int64, addr brokerAddr, lim stateLimits) error {
	old := ""
	if r, ok := s.replicas[name]; ok {
		old = r.Brokers[id].Address
	}
	return s.checkRoom(lim, name, false, nil, int64(len(addr)-len(old)))
}

// stats adds the accounted state size and the count of legacy entries that
// break the rules to a Raft stats map (metrics: rocketmq_controller_state_bytes,
// rocketmq_controller_legacy_entries_applied_total).
func (f *FSM) stats(m map[string]string) {
	f.read(func(s *state) { m["state_bytes"] = strconv.FormatInt(s.bytes(), 10) })
	m["legacy_entries_applied"] = strconv.FormatUint(f.legacy.n.Load(), 10)
	f.versionStats(m)
}

// checkHeartbeat holds a 904's names and address to the rules of the
// replicated state, with the hard ceilings (a set stored under a longer
// configured limit still beats): the heartbeat table is not replicated,
// but without it each of its entries could hold names of any length.
func checkHeartbeat(r wire.BrokerHeartbeatRequest) error {
	if r.BrokerID == nil {
		return nil // OnHeartbeat answers with Java's remark
	}
	if p := nameRule(r.ClusterName, hardLimits.NameLength); p != "" {
		return invalidName("clusterName", r.ClusterName, hardLimits.NameLength, p)
	}
	if p := nameRule(r.BrokerName, hardLimits.NameLength); p != "" {
		return invalidName("brokerName", r.BrokerName, hardLimits.NameLength, p)
	}
	if p := addrRule(r.BrokerAddr); p != "" {
		return invalidField("brokerAddr", p)
	}
	return nil
}
