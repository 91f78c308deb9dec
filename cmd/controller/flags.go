package main

import (
	"flag"
	"io"
	"time"
)

// options are the command-line flags.
type options struct {
	configFile string
	printOnly  bool
	probe      string
	wait       time.Duration
}

// parseFlags parses mqcontroller's flags; -h prints the usage and returns
// flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mqcontroller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.configFile, "c", "", "Controller config properties file")
	fs.BoolVar(&o.printOnly, "p", false, "Print all config items and exit")
	fs.StringVar(&o.probe, "probe", "", "Probe mode: ';'-separated controller addresses to ask for metadata (1005)")
	fs.DurationVar(&o.wait, "wait", 0, "Probe mode: how long to wait for a ready leader")
	return o, fs.Parse(args)
}
