package admin

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Severities of a Finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Finding codes of Diagnose.
const (
	FindingNameServerUnreachable = "nameserver-unreachable"
	FindingTopicAbsent           = "topic-absent"
	FindingTopicPartlyAbsent     = "topic-partly-absent"
	FindingEndpointUnreachable   = "endpoint-unreachable"
	FindingBrokerNotAnswering    = "broker-not-answering"
	FindingNoWritableQueue       = "no-writable-queue"
	FindingNoMasterInRoute       = "no-master-in-route"
	FindingAutoCreateSkew        = "auto-create-skew"
	FindingControllerUnreachable = "controller-unreachable"
	FindingControllerNoLeader    = "controller-no-leader"
	FindingControllerNoMaster    = "controller-no-master"
)

// Finding is one observation of Diagnose with the evidence behind it.
type Finding struct {
	Code     string   `json:"code"`
	Severity string   `json:"severity"`
	Summary  string   `json:"summary"`
	Evidence []string `json:"evidence"`
	Hint     string   `json:"hint,omitempty"`
}

// DiagnoseOptions says what to diagnose.
type DiagnoseOptions struct {
	NameServers  []string
	Controllers  []string // optional
	Topic        string
	ProbeTimeout time.Duration // default DefaultProbeTimeout
}

// Diagnosis is the result of Diagnose.
type Diagnosis struct {
	Topic       string    `json:"topic"`
	NameServers []string  `json:"nameServers"`
	Controllers []string  `json:"controllers,omitempty"`
	Sendable    bool      `json:"sendable"`
	Probes      []Probe   `json:"probes"`
	Findings    []Finding `json:"findings"`
}

// topicFacts is everything Diagnose fetched, shared by the checks.
type topicFacts struct {
	topic     string
	routes    map[string]*wire.TopicRouteData // NameServer -> route
	absent    map[string]string               // NameServer -> TOPIC_NOT_EXIST remark
	down      map[string]error                // NameServer -> unreachable/failed
	order     []string                        // NameServers in -n order
	cluster   *wire.ClusterInfo               // from the first NameServer that answered
	tbw102    *wire.TopicRouteData            // nil when absent
	queues    map[string]wire.QueueData       // merged over NameServers, by broker
	brokers   map[string]wire.BrokerData      // merged over NameServers, by broker
	advertise map[string][]string             // broker -> NameServers whose route names it
	probes    map[string]Probe                // broker address -> probe
}

// Diagnose fetches the topic's route from every NameServer, probes the
// advertised broker endpoints and, with controllers, asks the controller
// leader about the broker sets; it reports each problem found and whether
// the topic is sendable: some queue with write permission and write queues
// on a master whose endpoint accepts TCP connections and answers.
func (c *Client) Diagnose(ctx context.Context, opts DiagnoseOptions) *Diagnosis {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	f := c.gatherFacts(ctx, opts)
	d := &Diagnosis{Topic: opts.Topic, NameServers: opts.NameServers, Controllers: opts.Controllers,
		Findings: []Finding{}, Probes: []Probe{}}
	for _, a := range slices.Sorted(maps.Keys(f.probes)) {
		d.Probes = append(d.Probes, f.probes[a])
	}
	for _, check := range []func(*topicFacts) []Finding{
		checkNameServers, checkPresence, checkEndpoints, checkWritable, checkSkew,
	} {
		d.Findings = append(d.Findings, check(f)...)
	}
	if len(opts.Controllers) > 0 {
		d.Findings = append(d.Findings, c.checkControllers(ctx, f, opts.Controllers)...)
	}
	d.Sendable = f.sendable()
	return d
}

// gatherFacts asks every NameServer for the route, cluster info and
// TBW102, merges the routes and probes every advertised address.
func (c *Client) gatherFacts(ctx context.Context, opts DiagnoseOptions) *topicFacts {
	f := &topicFacts{topic: opts.Topic, order: opts.NameServers,
		routes: map[string]*wire.TopicRouteData{}, absent: map[string]string{}, down: map[string]error{},
		queues: map[string]wire.QueueData{}, brokers: map[string]wire.BrokerData{}, advertise: map[string][]string{}}
	for _, ns := range opts.NameServers {
		c.gatherNameServer(ctx, f, ns)
	}
	f.merge()
	f.probes = probeAll(ctx, f.addresses(), opts.ProbeTimeout, c.opts.TLS)
	return f
}

// gatherNameServer records one NameServer's answers.
func (c *Client) gatherNameServer(ctx context.Context, f *topicFacts, ns string) {
	rd, err := c.TopicRoute(ctx, ns, f.topic)
	switch {
	case err == nil:
		f.routes[ns] = rd
	case IsTopicNotExist(err):
		f.absent[ns] = remarkOf(err)
	default:
		f.down[ns] = err
		return
	}
	if f.cluster != nil {
		return
	}
	if ci, err := c.ClusterInfo(ctx, ns); err == nil {
		f.cluster = ci
		f.tbw102, _ = c.TopicRoute(ctx, ns, AutoCreateTopicKey)
	}
}

// merge unions the routes: the first NameServer naming a broker wins.
func (f *topicFacts) merge() {
	for _, ns := range f.order {
		rd := f.routes[ns]
		if rd == nil {
			continue
		}
		for _, q := range rd.QueueDatas {
			if _, ok := f.queues[q.BrokerName]; !ok {
				f.queues[q.BrokerName] = q
			}
		}
		for _, b := range rd.BrokerDatas {
			if _, ok := f.brokers[b.BrokerName]; !ok {
				f.brokers[b.BrokerName] = b
			}
			f.advertise[b.BrokerName] = append(f.advertise[b.BrokerName], ns)
		}
	}
}

// addresses is every distinct broker address in the merged route.
func (f *topicFacts) addresses() []string {
	set := map[string]struct{}{}
	for _, b := range f.brokers {
		for _, a := range b.BrokerAddrs {
			set[a] = struct{}{}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// writable reports whether q can take sends.
func writable(q wire.QueueData) bool { return q.Perm&wire.PermWrite != 0 && q.WriteQueueNums > 0 }

// sendable reports whether some writable queue sits on a master whose
// endpoint accepts TCP and answers.
func (f *topicFacts) sendable() bool {
	for name, q := range f.queues {
		master, ok := f.brokers[name].BrokerAddrs[wire.MasterID]
		if writable(q) && ok && f.probes[master].Answers {
			return true
		}
	}
	return false
}

// DefaultProbeTimeout bounds each step of a broker endpoint probe.
const DefaultProbeTimeout = 2 * time.Second

// Probe is what a broker endpoint did when contacted from here.
type Probe struct {
	Addr       string `json:"addr"`
	AcceptsTCP bool   `json:"acceptsTcp"`
	Answers    bool   `json:"answers"` // replied to a request, whatever the code
	Error      string `json:"error,omitempty"`
}

// ProbeBroker connects to a broker endpoint and sends it one request
// (GET_BROKER_RUNTIME_INFO). Any reply, even an error code, counts as an
// answer. Each step waits at most timeout. tlsCfg, when set, makes the
// request go over TLS.
func ProbeBroker(ctx context.Context, addr string, timeout time.Duration, tlsCfg *tls.Config) Probe {
	p := Probe{Addr: addr}
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	_ = nc.Close()
	p.AcceptsTCP = true
	if err := askBroker(ctx, addr, timeout, tlsCfg); err != nil {
		p.Error = err.Error()
		return p
	}
	p.Answers = true
	return p
}

// askBroker sends one request over a fresh connection and waits for any reply.
func askBroker(ctx context.Context, addr string, timeout time.Duration, tlsCfg *tls.Config) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rc, err := remoting.Dial(ctx, addr, remoting.ClientOptions{TLS: tlsCfg})
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = rc.Invoke(ctx, remoting.NewRequest(getBrokerRuntimeInfo, nil, nil))
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, remoting.ErrTimeout) {
		return fmt.Errorf("no reply within %s", timeout)
	}
	return err
}

// probeAll probes addrs concurrently.
func probeAll(ctx context.Context, addrs []string, timeout time.Duration, tlsCfg *tls.Config) map[string]Probe {
	out := make(map[string]Probe, len(addrs))
	res := make([]Probe, len(addrs))
	forEach(len(addrs), 16, func(i int) { res[i] = ProbeBroker(ctx, addrs[i], timeout, tlsCfg) })
	for _, p := range res {
		out[p.Addr] = p
	}
	return out
}
