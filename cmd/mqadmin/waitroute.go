package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/admin"
)

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
		res := e.client.WaitRoute(e.ctx, admin.WaitOptions{NameServers: ns, Topic: topic,
			Writable: writable, Timeout: limit, Interval: interval})
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
