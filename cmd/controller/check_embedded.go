//go:build embedded_controller

package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/process"
	"github.com/rmqgo/nameserver/internal/version"
	"github.com/rmqgo/nameserver/tlsconf"
)

// runCheck serves -p (print the effective config) and -check (say that it
// is valid) after the checks the controller makes before it opens a port
// (config.Validate, the TLS settings and their files), opening none: the
// unread keys as warnings and, when a check fails, every broken rule on
// stderr and exit 1.
func runCheck(o options, cfg *config.ControllerConfig, stdout, stderr io.Writer) int {
	for _, u := range cfg.Unread() {
		fmt.Fprintln(stderr, "controller: warning:", u)
	}
	errs := []error{cfg.Validate()}
	if m, err := loadTLS(cfg.RawProperties(), o.javaProps, hclog.NewNullLogger(), tlsconf.WithReloadInterval(0)); err != nil {
		errs = append(errs, err)
	} else {
		m.Close()
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(stderr, "controller: %s: the controller would refuse this configuration:\n%v\n", o.configFile, err)
		return 1
	}
	if o.printOnly {
		_, _ = stdout.Write(cfg.Render())
		return 0
	}
	fmt.Fprintf(stdout, "controller: %s: configuration is valid\n", o.configFile)
	return 0
}

// logStart logs the build, the config file and state directory, every
// setting that differs from the defaults and one warning for each
// property of the file that no setting reads.
func logStart(logger hclog.Logger, cfg *config.ControllerConfig, file string) {
	logger.Info("starting", "version", version.Version, "revision", version.Revision(),
		"controller_format", version.ControllerFormat, "go", runtime.Version())
	logger.Info("config", "file", file, "controllerStorePath", cfg.ControllerStorePath)
	logger.Info("settings differing from the defaults", process.KeyValueArgs(cfg.NonDefault())...)
	for _, u := range cfg.Unread() {
		logger.Warn("property read by no setting, ignored", u.LogArgs()...)
	}
}
