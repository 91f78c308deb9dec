package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	if res.Route, err = e.measureServer("route", ns, topo.topics); err != nil {
		return err
	}
	if res.Limit, err = e.measureServer("limit", limit, topo.topics); err != nil {
		return err
	}
	if res.Limit.Latency.QPS > 0 {
		res.QPSRatio = res.Route.Latency.QPS / res.Limit.Latency.QPS
	}
	return nil
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

// measureServer runs the warm-up and the measured phase against srv and
// reads its memory and CPU.
func (e *env) measureServer(name string, srv *child, topics []string) (serverRun, error) {
	var r serverRun
	load, err := openLoad(srv.addr, e.o.conns, topics, e.o.seed)
	if err != nil {
		return r, err
	}
	defer load.close()
	if _, _, err := load.run(e.o.warmup, 0, false); err != nil {
		return r, err
	}
	cpu0 := cpuSeconds(srv.pid())
	samples, wall, err := load.run(e.o.duration, 0, true)
	if err != nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	r.CPUSeconds = cpuSeconds(srv.pid()) - cpu0
	r.Latency = summarize(samples, wall)
	mem, err := readMem(srv.pid())
	r.PeakRSSMB, r.RSSMB = kbToMB(mem.HWMKB), kbToMB(mem.RSSKB)
	e.log.Info("measured", "server", name, "qps", int(r.Latency.QPS), "p99_us", r.Latency.P99US)
	return r, errors.Join(err, srv.alive())
}

// kbToMB converts kB to MB (10^6 bytes).
func kbToMB(kb int64) float64 { return float64(kb) * 1024 / 1e6 }
