package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/version"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the flags, serves the probe mode (which needs no Raft and so
// works in every build), and otherwise hands over to runController, which
// each build defines (run_embedded.go with the tag, run_default.go without).
func run(args []string, stdout, stderr io.Writer) int {
	args, javaProps, err := config.JavaProps(args, os.Getenv(config.JavaOptEnv))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	opts, err := parseFlags(args, stderr)
	opts.javaProps = javaProps
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	case opts.version:
		fmt.Fprintln(stdout, version.String("controller"))
		return 0
	case opts.probe != "":
		if probeTLS, err = probeClientTLS(javaProps); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return runProbe(opts.probe, opts.wait, stdout)
	}
	return runController(opts, stdout, stderr)
}
