package main

import (
	"crypto/tls"
	"flag"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/tlsconf"
)

// declareTLS declares --tls (Java's -Dtls.enable=true).
func (e *env) declareTLS(fs *flag.FlagSet) {
	fs.BoolVar(&e.tls, "tls", false, "speak TLS to NameServers, controllers and brokers (same as -Dtls.enable=true; "+
		"tls.client.* keys come from -D flags, $JAVA_OPT and tls.config.file)")
}

// clientTLS returns the TLS of this invocation, nil for plaintext: the
// tls.client.* settings of tls.config.file, $JAVA_OPT and the -D flags
// (later wins), used when tls.enable is true or --tls is given.
func (e *env) clientTLS(javaProps map[string]string) (*tls.Config, error) {
	tc, err := config.LoadTLS(nil, javaProps)
	if err != nil {
		return nil, err
	}
	tc.Enable = tc.Enable || e.tls
	if !tc.Enable {
		return nil, nil
	}
	return tlsconf.ClientConfig(tc)
}
