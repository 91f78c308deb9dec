package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rmqgo/nameserver/admin"
)

// env is what a running command gets: its context, output streams, the
// admin client and the common flags.
type env struct {
	ctx    context.Context
	out    io.Writer
	errOut io.Writer
	client *admin.Client
	name   string

	namesrv string // -n as given
	json    bool   // --json
	creds   credentials
	tls     bool // --tls
}

// declareCommon declares the flags every command takes.
func (e *env) declareCommon(fs *flag.FlagSet) {
	strFlag(fs, &e.namesrv, "n", "namesrvAddr", "NameServer addresses, \"host:port;host:port\" (default $NAMESRV_ADDR)")
	fs.BoolVar(&e.json, "json", false, "print the result as JSON")
	e.declareCredentials(fs)
	e.declareTLS(fs)
}

// nameServers returns -n (or $NAMESRV_ADDR) split on ';'; none is a usage
// error.
func (e *env) nameServers() ([]string, error) {
	list := e.namesrv
	if strings.TrimSpace(list) == "" {
		list = os.Getenv("NAMESRV_ADDR")
	}
	addrs := admin.SplitAddrs(list)
	if len(addrs) == 0 {
		return nil, &usageError{msg: admin.ErrNoNameServer.Error()}
	}
	return addrs, nil
}

// printf writes to stdout.
func (e *env) printf(format string, args ...any) { fmt.Fprintf(e.out, format, args...) }

// printJSON writes v as indented JSON.
func (e *env) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.out, "%s\n", b)
	return err
}

// usageError is a bad command line: message, usage, exit status 2.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usageErrorf(format string, args ...any) *usageError {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// statusError ends a command with a given status; err (optional) is
// printed.
type statusError struct {
	code int
	err  error
}

func (s *statusError) Error() string {
	if s.err == nil {
		return fmt.Sprintf("exit status %d", s.code)
	}
	return s.err.Error()
}

// strFlag declares a string flag under its short and long names.
func strFlag(fs *flag.FlagSet, p *string, short, long, usage string) {
	fs.StringVar(p, short, "", usage)
	if long != "" {
		fs.StringVar(p, long, "", "same as -"+short)
	}
}

// boolFlag declares a bool flag under its short and long names.
func boolFlag(fs *flag.FlagSet, p *bool, short, long, usage string) {
	fs.BoolVar(p, short, false, usage)
	if long != "" {
		fs.BoolVar(p, long, false, "same as -"+short)
	}
}

// required checks that each named option has a non-blank value and
// returns the values trimmed, in order.
func required(opts ...namedOpt) error {
	for _, o := range opts {
		*o.p = strings.TrimSpace(*o.p)
		if *o.p == "" {
			return usageErrorf("missing required option: -%s", o.name)
		}
	}
	return nil
}

// namedOpt pairs an option's name with its value.
type namedOpt struct {
	name string
	p    *string
}

func opt(name string, p *string) namedOpt { return namedOpt{name, p} }

// javaList renders a list like Java's List.toString: "[a, b]".
func javaList(items []string) string { return "[" + strings.Join(items, ", ") + "]" }

// nodeResult is the outcome of one request of a command sent to every
// listed server.
type nodeResult struct {
	Addr  string `json:"addr"`
	OK    bool   `json:"ok"`
	Count *int   `json:"count,omitempty"` // wipeWritePerm/addWritePerm: topics touched
	Error string `json:"error,omitempty"`
}

// fanOut calls fn for each address in order and returns every outcome and
// the failures joined (nil when all succeeded).
func fanOut(addrs []string, fn func(addr string) (*int, error)) ([]nodeResult, error) {
	res := make([]nodeResult, 0, len(addrs))
	var errs []error
	for _, a := range addrs {
		n, err := fn(a)
		r := nodeResult{Addr: a, OK: err == nil, Count: n}
		if err != nil {
			r.Error = err.Error()
			errs = append(errs, err)
		}
		res = append(res, r)
	}
	return res, errors.Join(errs...)
}

// each adapts a call without a count for fanOut.
func each(fn func(addr string) error) func(string) (*int, error) {
	return func(a string) (*int, error) { return nil, fn(a) }
}

// failedOn reports which servers failed, for the exit message.
func failedOn(res []nodeResult, err error) error {
	if err == nil {
		return nil
	}
	n := 0
	for _, r := range res {
		if !r.OK {
			n++
		}
	}
	return fmt.Errorf("failed on %d of %d servers: %w", n, len(res), err)
}

// fanOutJSON prints the per-server outcomes under extra fields as JSON
// and returns the failure, if any.
func fanOutJSON(e *env, fields map[string]any, res []nodeResult, err error) error {
	out := map[string]any{"results": res, "ok": err == nil}
	for k, v := range fields {
		out[k] = v
	}
	if perr := e.printJSON(out); perr != nil {
		return perr
	}
	return failedOn(res, err)
}
