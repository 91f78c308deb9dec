package main

import (
	"errors"
	"flag"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the flags, serves the probe mode (which needs no Raft and so
// works in every build), and otherwise hands over to runController, which
// each build defines (run_embedded.go with the tag, run_default.go without).
func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	case opts.probe != "":
		return runProbe(opts.probe, opts.wait, stdout)
	}
	return runController(opts, stdout, stderr)
}
