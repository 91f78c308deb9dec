package main

import (
	"errors"
	"fmt"
)

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
