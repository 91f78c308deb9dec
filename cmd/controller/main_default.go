//go:build !embedded_controller

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run keeps the probe mode, which needs no Raft; anything else needs the
// controller, which this build lacks.
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
	fmt.Fprintln(stderr, "mqcontroller: built without -tags embedded_controller; rebuild with it to run a controller")
	return 1
}
