// Command controller runs a standalone RocketMQ Controller (Java's
// mqcontroller): broker master election replicated with Raft, serving the
// controller protocol to brokers in controller mode
// (enableControllerMode=true, controllerAddr=...).
//
// Usage:
//
//	controller -c controller.properties   run until SIGTERM/SIGINT/SIGHUP
//	                                      (kill -3 logs every goroutine's stack)
//	controller -c FILE -p                 print every config item and exit
//	                                      (1, with the errors, if refused)
//	controller -c FILE -check             check the file as the start does,
//	                                      open no port, exit 0 or 1
//	controller -version                   print the version and exit
//	controller -probe "a:p;b:p" [-wait 30s]
//	                                      ask each controller for its metadata
//	                                      (1005) and wait for a ready leader
//	controller -c FILE -restore-backup BACKUP [-restore-token T]
//	                                      write controllerStorePath (which must
//	                                      hold no Raft state) as a member of a new
//	                                      group holding the backup's state; run on
//	                                      every node with the same backup and token
//	-Dtls.key=value                       Java-style TLS properties (see docs/security.md);
//	                                      with -probe, -Dtls.enable=true dials TLS
//
// CONTROLLER_<KEY>=value environment variables set keys over the -c file
// (any case, underscores ignored; see config.EnvProps).
//
// The controller itself is compiled only with -tags embedded_controller;
// the default build keeps -probe and otherwise exits 1.
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
	check      bool
	probe      string
	wait       time.Duration
	javaProps  map[string]string // -Dkey=value arguments (tls.*)
	version    bool
	restore    string // -restore-backup: the backup file to restore (restore_embedded.go)
	token      string // -restore-token
}

// parseFlags parses mqcontroller's flags; -h prints the usage and returns
// flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mqcontroller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.configFile, "c", "", "Controller config properties file")
	fs.BoolVar(&o.printOnly, "p", false, "Print all config items and exit (1, with the errors, if the controller would refuse them)")
	fs.BoolVar(&o.check, "check", false, "Check the configuration as the controller does before it opens a port, open none, and exit 0 (valid) or 1")
	fs.StringVar(&o.probe, "probe", "", "Probe mode: ';'-separated controller addresses to ask for metadata (1005)")
	fs.DurationVar(&o.wait, "wait", 0, "Probe mode: how long to wait for a ready leader")
	fs.BoolVar(&o.version, "version", false, "Print the version and the Controller format this binary reads, and exit")
	fs.StringVar(&o.restore, "restore-backup", "", "Restore: write controllerStorePath as a new group from this backup file (mqadmin backupController) and exit")
	fs.StringVar(&o.token, "restore-token", "", "Restore: mixed into the new group's id (the same on every node); tells two restores of one backup apart")
	return o, fs.Parse(args)
}
