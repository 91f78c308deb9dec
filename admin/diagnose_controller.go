package admin

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rmqgo/nameserver/controller/wire"
)

// checkControllers asks the controllers for a leader and the leader for
// the state of the topic's broker sets (every registered set when the
// topic has no route).
func (c *Client) checkControllers(ctx context.Context, f *topicFacts, addrs []string) []Finding {
	leader, fd := c.controllerLeader(ctx, addrs)
	if fd != nil {
		return []Finding{*fd}
	}
	names := f.brokerSetNames()
	if len(names) == 0 {
		return nil
	}
	info, err := c.SyncStateData(ctx, leader, names)
	if err != nil {
		return []Finding{{Code: FindingControllerUnreachable, Severity: SeverityWarning,
			Summary:  "the controller leader " + leader + " did not return the sync-state data",
			Evidence: []string{err.Error()}}}
	}
	var out []Finding
	for _, n := range names {
		if ri, ok := info.ReplicasInfoTable[n]; ok && !ri.HasMaster() {
			out = append(out, noMasterFinding(n, ri))
		}
	}
	return out
}

// controllerLeader returns the leader's address, or the finding that
// explains why there is none.
func (c *Client) controllerLeader(ctx context.Context, addrs []string) (string, *Finding) {
	var ev []string
	answered := false
	for _, a := range addrs {
		md, err := c.ControllerMetadata(ctx, a)
		if err != nil {
			ev = append(ev, err.Error())
			continue
		}
		if md.LeaderAddr != "" {
			return md.LeaderAddr, nil
		}
		answered = true
		ev = append(ev, fmt.Sprintf("%s: group=%s isLeader=%t controllerLeaderAddress=<none> peers=%s",
			a, md.Group, md.IsLeader, md.Peers))
	}
	if !answered {
		return "", &Finding{Code: FindingControllerUnreachable, Severity: SeverityError, Evidence: ev,
			Summary: "no controller of -a could be reached", Hint: "check -a and that the controllers run"}
	}
	return "", &Finding{Code: FindingControllerNoLeader, Severity: SeverityError, Evidence: ev,
		Summary: "the controller has no leader: no broker master can be elected or changed",
		Hint: "a majority of the controllerDLegerPeers must run and reach each other on their Raft ports; " +
			"check every controller's logs and peer configuration"}
}

func noMasterFinding(name string, ri wire.ReplicasInfo) Finding {
	return Finding{Code: FindingControllerNoMaster, Severity: SeverityError,
		Summary: "broker set " + name + " has no master in the controller",
		Evidence: []string{
			fmt.Sprintf("masterEpoch=%d syncStateSetEpoch=%d", ri.MasterEpoch, ri.SyncStateSetEpoch),
			"in sync: " + replicaList(ri.InSyncReplicas),
			"not in sync: " + replicaList(ri.NotInSyncReplicas),
		},
		Hint: "no eligible replica is alive: bring a replica of the sync-state set back, or designate one " +
			"with mqadmin electMaster -a <controllers> -c <cluster> -bn " + name + " -b <brokerId> " +
			"(an out-of-sync replica may lose messages)"}
}

func replicaList(rs []wire.ReplicaIdentity) string {
	if len(rs) == 0 {
		return "none"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		alive := "dead"
		if r.Alive {
			alive = "alive"
		}
		parts[i] = fmt.Sprintf("%d@%s(%s)", r.BrokerID, r.BrokerAddress, alive)
	}
	return strings.Join(parts, " ")
}

// brokerSetNames is the topic's brokers, or every registered broker when
// the topic has no route.
func (f *topicFacts) brokerSetNames() []string {
	if len(f.queues) > 0 {
		return slices.Sorted(maps.Keys(f.queues))
	}
	if f.cluster == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(f.cluster.BrokerAddrTable))
}
