package main

import (
	"flag"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/admin"
)

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
