package main

import (
	"crypto/tls"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/tlsconf"
)

// probeTLS is the client TLS of -probe (nil: plaintext), set once by run
// from the -D flags before probing.
var probeTLS *tls.Config

// probeClientTLS returns the tls.client.* side of the -D flags when
// tls.enable is true (read once; the probe is short-lived).
func probeClientTLS(javaProps map[string]string) (*tls.Config, error) {
	tc, err := config.LoadTLS(nil, javaProps)
	if err != nil {
		return nil, err
	}
	return tlsconf.ClientConfig(tc)
}

// loadTLS loads the tls.* settings (the -c file, tls.config.file, then
// the -D flags) and every file they name.
func loadTLS(fileProps, javaProps map[string]string, logger hclog.Logger, opts ...tlsconf.Option) (*tlsconf.Manager, error) {
	tc, err := config.LoadTLS(fileProps, javaProps)
	if err != nil {
		return nil, err
	}
	return tlsconf.New(tc, logger, opts...)
}
