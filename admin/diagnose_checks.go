package admin

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// Hints shared by the endpoint findings.
const (
	expiryNote = "The NameServer drops a broker that stopped without unregistering only when its liveness " +
		"expires: within 120 s of its last registration by default (brokers re-register every 30 s), or at " +
		"once if its NameServer connection closes. Clients cache routes for ~30 s on top of that."
	advertiseHint = "If the broker is running, check brokerIP1 (and listenPort) in its broker.conf: it must " +
		"advertise an address clients can reach, and no firewall may block it. "
)

// remarkOf is the first line of a *ResponseError's remark.
func remarkOf(err error) string {
	var re *ResponseError
	if !errors.As(err, &re) {
		return err.Error()
	}
	first, _, _ := strings.Cut(re.Remark, "\n")
	return first
}

func checkNameServers(f *topicFacts) []Finding {
	var out []Finding
	for _, ns := range f.order {
		err, ok := f.down[ns]
		if !ok {
			continue
		}
		sev := SeverityWarning
		if len(f.down) == len(f.order) {
			sev = SeverityError
		}
		out = append(out, Finding{Code: FindingNameServerUnreachable, Severity: sev,
			Summary:  fmt.Sprintf("NameServer %s could not be asked for the route", ns),
			Evidence: []string{err.Error()},
			Hint:     "check -n and that the NameServer runs; clients configured with it alone cannot find routes"})
	}
	return out
}

func checkPresence(f *topicFacts) []Finding {
	switch {
	case len(f.absent) == 0:
		return nil
	case len(f.routes) == 0:
		return []Finding{absentEverywhere(f)}
	}
	var ev []string
	for _, ns := range f.order {
		if rd := f.routes[ns]; rd != nil {
			ev = append(ev, fmt.Sprintf("%s: route names brokers %s", ns, routeBrokers(rd)))
		} else if remark, ok := f.absent[ns]; ok {
			ev = append(ev, fmt.Sprintf("%s: TOPIC_NOT_EXIST: %s", ns, remark))
		}
	}
	return []Finding{{Code: FindingTopicPartlyAbsent, Severity: SeverityWarning,
		Summary: fmt.Sprintf("topic %s is routed by some NameServers only: absent on %s",
			f.topic, strings.Join(slices.Sorted(maps.Keys(f.absent)), ", ")),
		Evidence: ev,
		Hint: "those NameServers missed the brokers' registrations: check that every broker's namesrvAddr " +
			"lists every NameServer and can reach it (brokers re-register every 30 s); compare with mqadmin routeDiff"}}
}

// absentEverywhere explains a topic no NameServer routes.
func absentEverywhere(f *topicFacts) Finding {
	var ev []string
	for _, ns := range slices.Sorted(maps.Keys(f.absent)) {
		ev = append(ev, fmt.Sprintf("%s: TOPIC_NOT_EXIST: %s", ns, f.absent[ns]))
	}
	ev = append(ev, registeredBrokers(f.cluster))
	if line := tbw102Evidence(f); line != "" {
		ev = append(ev, line)
	}
	return Finding{Code: FindingTopicAbsent, Severity: SeverityError,
		Summary:  fmt.Sprintf("topic %s is absent on every NameServer: it was not provisioned, or no broker registered it", f.topic),
		Evidence: ev,
		Hint: "create it on the brokers (mqadmin updateTopic -c <cluster> -t " + f.topic + "), and check that " +
			"the brokers holding it list these NameServers in namesrvAddr"}
}

func registeredBrokers(ci *wire.ClusterInfo) string {
	if ci == nil || len(ci.BrokerAddrTable) == 0 {
		return "no broker is registered with the NameServers"
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(ci.ClusterAddrTable)) {
		parts = append(parts, fmt.Sprintf("%s=[%s]", c, strings.Join(slices.Sorted(slices.Values(ci.ClusterAddrTable[c])), ",")))
	}
	return "registered brokers by cluster: " + strings.Join(parts, " ")
}

// tbw102Evidence says whether auto-creation is on, as TBW102 shows.
func tbw102Evidence(f *topicFacts) string {
	if f.cluster == nil {
		return ""
	}
	if f.tbw102 == nil {
		return "TBW102 is not routed: autoCreateTopicEnable is off on every registered broker"
	}
	return fmt.Sprintf("TBW102 is routed on brokers %s: autoCreateTopicEnable is on there, so a send creates "+
		"missing topics on the broker it reaches", routeBrokers(f.tbw102))
}

func routeBrokers(rd *wire.TopicRouteData) string {
	var names []string
	for _, q := range rd.QueueDatas {
		names = append(names, q.BrokerName)
	}
	slices.Sort(names)
	return "[" + strings.Join(names, ",") + "]"
}

func checkEndpoints(f *topicFacts) []Finding {
	var out []Finding
	for _, name := range slices.Sorted(maps.Keys(f.brokers)) {
		addrs := f.brokers[name].BrokerAddrs
		for _, id := range slices.Sorted(maps.Keys(addrs)) {
			if fd, bad := endpointFinding(f, name, id, f.probes[addrs[id]]); bad {
				out = append(out, fd)
			}
		}
	}
	return out
}

// endpointFinding reports a broker address that refuses TCP or does not answer.
func endpointFinding(f *topicFacts, name string, id int64, p Probe) (Finding, bool) {
	if p.Answers {
		return Finding{}, false
	}
	sev := SeverityWarning
	if id == wire.MasterID {
		sev = SeverityError
	}
	who := fmt.Sprintf("broker %s (id %d) at %s", name, id, p.Addr)
	ev := []string{"probe: " + p.Error, "advertised in the route by " + strings.Join(f.advertise[name], ", ")}
	if !p.AcceptsTCP {
		return Finding{Code: FindingEndpointUnreachable, Severity: sev, Evidence: ev,
			Summary: who + " is in the route but does not accept TCP connections from here",
			Hint:    advertiseHint + expiryNote}, true
	}
	return Finding{Code: FindingBrokerNotAnswering, Severity: sev, Evidence: ev,
		Summary: who + " accepts TCP but no longer answers requests, yet stays in the route",
		Hint:    "the broker is hung, overloaded or shutting down. " + expiryNote}, true
}

func checkWritable(f *topicFacts) []Finding {
	if len(f.queues) == 0 {
		return nil
	}
	var ev, withWrite []string
	for _, name := range slices.Sorted(maps.Keys(f.queues)) {
		q := f.queues[name]
		ev = append(ev, fmt.Sprintf("%s: %s addrs=%s", name, FormatQueueData(q), FormatAddrs(f.brokers[name].BrokerAddrs)))
		if writable(q) {
			withWrite = append(withWrite, name)
		}
	}
	if len(withWrite) == 0 {
		return []Finding{{Code: FindingNoWritableQueue, Severity: SeverityError, Evidence: ev,
			Summary: fmt.Sprintf("topic %s has no writable queue (no broker grants write permission with write queues)", f.topic),
			Hint: "write permission was wiped (mqadmin wipeWritePerm, or an acting-master group lost its master) or " +
				"the topic is read-only: mqadmin addWritePerm -b <brokerName> restores the NameServer copy until the " +
				"broker re-registers; mqadmin updateTopic -p 6 fixes the topic on the broker"}}
	}
	for _, name := range withWrite {
		if _, ok := f.brokers[name].BrokerAddrs[wire.MasterID]; ok {
			return nil
		}
	}
	return []Finding{{Code: FindingNoMasterInRoute, Severity: SeverityError, Evidence: ev,
		Summary: fmt.Sprintf("the writable queues of topic %s are on brokers without a master (id 0) in the route", f.topic),
		Hint:    "the master is down or not elected yet; in controller mode run diagnose with -a or mqadmin getSyncStateSet"}}
}

func checkSkew(f *topicFacts) []Finding {
	if f.cluster == nil || len(f.queues) == 0 {
		return nil
	}
	var out []Finding
	for _, cl := range slices.Sorted(maps.Keys(f.cluster.ClusterAddrTable)) {
		members := slices.Sorted(slices.Values(f.cluster.ClusterAddrTable[cl]))
		var have, missing []string
		for _, b := range members {
			if _, ok := f.queues[b]; ok {
				have = append(have, b)
			} else {
				missing = append(missing, b)
			}
		}
		if len(have) > 0 && len(missing) > 0 {
			out = append(out, skewFinding(f, cl, members, missing))
		}
	}
	return out
}

func skewFinding(f *topicFacts, cluster string, members, missing []string) Finding {
	hint := "create it on the missing brokers: mqadmin updateTopic -c " + cluster + " -t " + f.topic
	if f.tbw102 != nil {
		hint = "autoCreateTopicEnable is on, so the topic was probably auto-created by sends that reached " +
			"only some brokers; " + hint + ", and consider autoCreateTopicEnable=false in production"
	}
	ev := []string{
		fmt.Sprintf("cluster %s has brokers [%s]", cluster, strings.Join(members, ",")),
		fmt.Sprintf("topic %s has queues on %s", f.topic, routeBrokersOf(f.queues)),
		tbw102Evidence(f),
	}
	return Finding{Code: FindingAutoCreateSkew, Severity: SeverityWarning, Evidence: ev, Hint: hint,
		Summary: fmt.Sprintf("topic %s lives on only some brokers of cluster %s: missing on %s",
			f.topic, cluster, strings.Join(missing, ", "))}
}

func routeBrokersOf(q map[string]wire.QueueData) string {
	return "[" + strings.Join(slices.Sorted(maps.Keys(q)), ",") + "]"
}
