package main

import (
	"flag"
	"fmt"
	"strings"

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
