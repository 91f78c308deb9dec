package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/admin"
)

func setupRouteDiff(fs *flag.FlagSet) runFunc {
	var topic string
	strFlag(fs, &topic, "t", "topic", "compare only this topic's route (default: every topic of the union of topic lists)")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err != nil {
			return err
		}
		if len(ns) < 2 {
			return usageErrorf("routeDiff needs at least two NameServers in -n")
		}
		d := e.client.RouteDiff(e.ctx, ns, strings.TrimSpace(topic))
		if e.json {
			err = e.printJSON(d)
		} else {
			printRouteDiff(e, d)
		}
		if err != nil {
			return err
		}
		return routeDiffStatus(d)
	}
}

// routeDiffStatus is 2 when a NameServer could not be read, 1 when they
// differ, 0 when identical.
func routeDiffStatus(d *admin.RouteDiff) error {
	switch {
	case len(d.Errors) > 0:
		return &statusError{code: exitUsage, err: fmt.Errorf("%d error(s) reading the NameServers", len(d.Errors))}
	case len(d.Differences) > 0:
		return &statusError{code: exitFail}
	}
	return nil
}

func printRouteDiff(e *env, d *admin.RouteDiff) {
	e.printf("#NameServers\t%s\n", strings.Join(d.NameServers, ";"))
	e.printf("#Compared\t%d clusters, %d brokers, %d topics\n", d.Clusters, d.Brokers, d.Topics)
	for _, ne := range d.Errors {
		e.printf("\n[error] %s: %s\n", ne.NameServer, ne.Error)
	}
	for _, df := range d.Differences {
		e.printf("\n[%s %s] %s differs\n", df.Kind, df.Name, df.Aspect)
		for _, v := range df.Values {
			e.printf("    %-24s %s\n", v.NameServer, v.Value)
		}
	}
	switch {
	case len(d.Differences) > 0:
		e.printf("\n#Differences\t%d\n", len(d.Differences))
	case len(d.Errors) == 0:
		e.printf("\nidentical on %d NameServers\n", len(d.NameServers))
	}
}

func setupDiagnose(fs *flag.FlagSet) runFunc {
	var topic, ctl string
	var probe time.Duration
	strFlag(fs, &topic, "t", "topic", "topic name")
	strFlag(fs, &ctl, "a", "controllerAddress", "controller addresses, \"host:port;host:port\" (optional)")
	fs.DurationVar(&probe, "probeTimeout", admin.DefaultProbeTimeout, "how long to wait for a broker endpoint")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err == nil {
			err = required(opt("t", &topic))
		}
		if err != nil {
			return err
		}
		d := e.client.Diagnose(e.ctx, admin.DiagnoseOptions{NameServers: ns, Topic: topic,
			Controllers: admin.SplitAddrs(ctl), ProbeTimeout: probe})
		if e.json {
			err = e.printJSON(d)
		} else {
			printDiagnosis(e, d)
		}
		if err == nil && !d.Sendable {
			return &statusError{code: exitFail}
		}
		return err
	}
}

func printDiagnosis(e *env, d *admin.Diagnosis) {
	e.printf("#Topic\t%s\n#NameServers\t%s\n", d.Topic, strings.Join(d.NameServers, ";"))
	if len(d.Controllers) > 0 {
		e.printf("#Controllers\t%s\n", strings.Join(d.Controllers, ";"))
	}
	for _, p := range d.Probes {
		e.printf("#Endpoint\t%-24s acceptsTcp=%t answers=%t\n", p.Addr, p.AcceptsTCP, p.Answers)
	}
	for _, f := range d.Findings {
		e.printf("\n[%s] %s: %s\n", strings.ToUpper(f.Severity), f.Code, f.Summary)
		for _, ev := range f.Evidence {
			e.printf("    evidence: %s\n", ev)
		}
		if f.Hint != "" {
			e.printf("    hint: %s\n", f.Hint)
		}
	}
	if len(d.Findings) == 0 {
		e.printf("\nno problem found\n")
	}
	verdict := "sendable: a writable queue sits on a master that accepts connections and answers"
	if !d.Sendable {
		verdict = "NOT sendable: no writable queue on a master that accepts connections and answers"
	}
	e.printf("\n#Result\ttopic %s is %s\n", d.Topic, verdict)
}

func setupWaitRoute(fs *flag.FlagSet) runFunc {
	var topic, timeout string
	var writable bool
	var interval time.Duration
	strFlag(fs, &topic, "t", "topic", "topic name")
	fs.BoolVar(&writable, "writable", false, "also wait for a writable queue on a master")
	fs.StringVar(&timeout, "timeout", "60s", "how long to wait (Go duration, or seconds)")
	fs.DurationVar(&interval, "interval", admin.DefaultWaitInterval, "pause between rounds")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err == nil {
			err = required(opt("t", &topic))
		}
		if err != nil {
			return err
		}
		limit, err := parseTimeout(timeout)
		if err != nil {
			return err
		}
		opts := admin.WaitOptions{NameServers: ns, Topic: topic, Writable: writable, Timeout: limit, Interval: interval}
		var p *waitProgress
		if isTerminal(e.errOut) {
			p = &waitProgress{w: e.errOut, topic: topic, limit: limit}
			opts.Progress = p.round
		}
		res := e.client.WaitRoute(e.ctx, opts)
		if p != nil {
			p.done()
		}
		return reportWait(e, topic, limit, res)
	}
}

// parseTimeout reads --timeout as a Go duration or a number of seconds.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return time.Duration(n) * time.Second, nil
	}
	return 0, usageErrorf("--timeout must be a positive duration such as 60s, not %q", s)
}

func reportWait(e *env, topic string, limit time.Duration, res *admin.WaitResult) error {
	if e.json {
		if err := e.printJSON(res); err != nil {
			return err
		}
	} else {
		for _, s := range res.Statuses {
			state := "waiting"
			if s.Ready {
				state = "ready"
			}
			e.printf("%-24s %-8s %s\n", s.NameServer, state, s.Detail)
		}
	}
	if !res.Ready {
		return &statusError{code: exitFail, err: fmt.Errorf("timed out after %s waiting for the route of %s", limit, topic)}
	}
	if !e.json {
		e.printf("route of %s ready on %d NameServers after %s\n", topic, len(res.Statuses), res.Elapsed.Round(time.Millisecond))
	}
	return nil
}
