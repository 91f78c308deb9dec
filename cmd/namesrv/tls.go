package main

import (
	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/tlsconf"
)

// startTLS loads the tls.* settings (the -c file, tls.config.file, then
// the -D flags) and every file they name; an error names the key and file.
func startTLS(cfg *config.NamesrvConfig, javaProps map[string]string, logger hclog.Logger) (*tlsconf.Manager, error) {
	tc, err := config.LoadTLS(cfg.RawProperties(), javaProps)
	if err != nil {
		return nil, err
	}
	return tlsconf.New(tc, logger)
}
