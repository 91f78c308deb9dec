package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/tlsconf"
)

// checkConfig runs the checks the server runs before it opens a port
// (config.Validate, the TLS settings and every file they name, the
// kvConfigPath directory), opening none: what -p and -check report.
func checkConfig(cfg *config.NamesrvConfig, javaProps map[string]string) error {
	errs := []error{cfg.Validate(), cfg.CheckStatePaths()}
	tc, err := config.LoadTLS(cfg.RawProperties(), javaProps)
	if err == nil {
		var m *tlsconf.Manager
		if m, err = tlsconf.New(tc, hclog.NewNullLogger(), tlsconf.WithReloadInterval(0)); err == nil {
			m.Close()
		}
	}
	return errors.Join(append(errs, err)...)
}

// runCheck serves -p (print the effective config) and -check (say that
// it is valid): the unread keys as warnings and, when a check fails, every
// broken rule on stderr and exit 1.
func runCheck(o options, cfg *config.NamesrvConfig, javaProps map[string]string, stdout, stderr io.Writer) int {
	for _, u := range cfg.Unread() {
		fmt.Fprintln(stderr, "namesrv: warning:", u)
	}
	if err := checkConfig(cfg, javaProps); err != nil {
		fmt.Fprintf(stderr, "namesrv: %s: the server would refuse this configuration:\n%v\n", describeFile(o.configFile), err)
		return 1
	}
	if o.printOnly {
		_, _ = stdout.Write(cfg.Render())
		return 0
	}
	fmt.Fprintf(stdout, "namesrv: %s: configuration is valid\n", describeFile(o.configFile))
	return 0
}

func describeFile(path string) string {
	if path == "" {
		return "no -c file (Java's defaults)"
	}
	return path
}
