package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// Topology of the small workload (the Rust port's "smoke" profile).
const (
	smallTopics  = 100
	smallBrokers = 10
	smallWidth   = 4
)

// serverRun is one server under the lookup load.
type serverRun struct {
	Latency    latency `json:"latency"`
	PeakRSSMB  float64 `json:"peak_rss_mb"` // VmHWM at the end of the run
	RSSMB      float64 `json:"rss_mb"`      // VmRSS at the end of the run
	CPUSeconds float64 `json:"cpu_s"`       // user+system CPU of the server during the measured phase
	CPUPerReq  float64 `json:"cpu_us_per_req"`
}

// smallResult is the small workload: route lookups vs the transport limit.
type smallResult struct {
	Topics, Brokers, Width int
	RouteBodyBytes         int       `json:"route_body_bytes"`
	Route                  serverRun `json:"route"`
	Limit                  serverRun `json:"limit"`
	QPSRatio               float64   `json:"qps_ratio"` // route QPS / limit QPS
}

// runSmall registers 100 topics on 10 brokers and measures lookups against
// the NameServer, then against the transport-limit server.
func (e *env) runSmall() (*smallResult, error) {
	e.log.Info("small: starting", "topics", smallTopics, "brokers", smallBrokers)
	ns, err := e.namesrv("small")
	if err != nil {
		return nil, err
	}
	defer ns.stop()
	topo := newTopology(smallTopics, smallBrokers, smallWidth)
	reg, err := e.dial(ns.addr)
	if err != nil {
		return nil, err
	}
	defer reg.Close() // brokers stay registered while their connection lives
	if _, err := registerAll(reg, topo); err != nil {
		return nil, err
	}
	res := &smallResult{Topics: smallTopics, Brokers: smallBrokers, Width: smallWidth}
	return res, e.measureSmall(res, ns, reg, topo)
}

// measureSmall starts the limit server with a real route body and runs the
// lookup load against both servers.
func (e *env) measureSmall(res *smallResult, ns *child, reg *remoting.Client, topo *topology) error {
	bodyPath, n, err := e.saveRouteBody(reg, topo.topics[0])
	if err != nil {
		return err
	}
	res.RouteBodyBytes = n
	limit, err := startLimit(e.self, e.dir, bodyPath, e.profilePath("small-limit"), e.log)
	if err != nil {
		return err
	}
	defer limit.stop()
	route, err := e.newTarget("route", ns, topo.topics)
	if err != nil {
		return err
	}
	defer route.load.close()
	lim, err := e.newTarget("limit", limit, topo.topics)
	if err != nil {
		return err
	}
	defer lim.load.close()
	if err := e.interleave(route, lim); err != nil {
		return err
	}
	res.Route, res.Limit = route.result(), lim.result()
	if res.Limit.Latency.QPS > 0 {
		res.QPSRatio = res.Route.Latency.QPS / res.Limit.Latency.QPS
	}
	return errors.Join(ns.alive(), limit.alive())
}

// saveRouteBody fetches the route of topic as a Go client would get it and
// writes the body to a file for the limit server.
func (e *env) saveRouteBody(c *remoting.Client, topic string) (string, int, error) {
	req := &remoting.Command{
		Code: remoting.GetRouteinfoByTopic, Language: remoting.LanguageGo, Version: 317,
		ExtFields: map[string]string{"topic": topic},
	}
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	resp, err := c.Invoke(ctx, req)
	if err != nil {
		return "", 0, err
	}
	if resp.Code != remoting.Success || len(resp.Body) == 0 {
		return "", 0, fmt.Errorf("route of %s: code %d %q", topic, resp.Code, resp.Remark)
	}
	path := filepath.Join(e.dir, "route-body.json")
	return path, len(resp.Body), os.WriteFile(path, resp.Body, 0o600)
}

// loadTarget is one server under the small workload's lookup load.
type loadTarget struct {
	name    string
	srv     *child
	load    *lookupLoad
	samples []int64
	wall    time.Duration
	cpu     float64
	mem     memStatus
	rereg   *reregWriter // re-registers during the measured slices; may be nil
}

// newTarget opens the lookup connections to srv and warms them up.
func (e *env) newTarget(name string, srv *child, topics []string) (*loadTarget, error) {
	return e.newTargetConns(name, srv, topics, e.o.conns)
}

// newTargetConns is newTarget with conns connections.
func (e *env) newTargetConns(name string, srv *child, topics []string, conns int) (*loadTarget, error) {
	load, err := openLoad(srv.addr, conns, topics, e.o.seed)
	if err != nil {
		return nil, err
	}
	t := &loadTarget{name: name, srv: srv, load: load}
	if _, _, err := load.run(e.o.warmup, 0, false); err != nil {
		load.close()
		return nil, fmt.Errorf("%s warm-up: %w", name, err)
	}
	return t, nil
}

// interleave measures the targets in -rounds alternating slices of
// -duration each, so that background load on a shared machine falls on
// both alike.
func (e *env) interleave(ts ...*loadTarget) error {
	slice := e.o.duration / time.Duration(e.o.rounds)
	for r := 0; r < e.o.rounds; r++ {
		for _, t := range ts {
			if err := t.measure(slice); err != nil {
				return err
			}
		}
	}
	for _, t := range ts {
		l := summarize(t.samples, t.wall)
		e.log.Info("measured", "server", t.name, "qps", int(l.QPS), "p99_us", l.P99US)
	}
	return nil
}

// measure runs one closed-loop slice and adds its samples, wall time and
// server CPU; it reads the server's memory afterwards.
func (t *loadTarget) measure(d time.Duration) error {
	cpu0 := cpuSeconds(t.srv.pid())
	var samples []int64
	var wall time.Duration
	err := t.rereg.during(func() (err error) {
		samples, wall, err = t.load.run(d, 0, true)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	t.cpu += cpuSeconds(t.srv.pid()) - cpu0
	t.samples, t.wall = append(t.samples, samples...), t.wall+wall
	t.mem, err = readMem(t.srv.pid())
	return err
}

// result summarizes the loadTarget's measurement.
func (t *loadTarget) result() serverRun {
	r := serverRun{
		Latency: summarize(t.samples, t.wall), CPUSeconds: t.cpu,
		PeakRSSMB: kbToMB(t.mem.HWMKB), RSSMB: kbToMB(t.mem.RSSKB),
	}
	r.CPUPerReq = t.cpu * 1e6 / float64(max(r.Latency.Count, 1))
	return r
}

// kbToMB converts kB to MB (10^6 bytes).
func kbToMB(kb int64) float64 { return float64(kb) * 1024 / 1e6 }
