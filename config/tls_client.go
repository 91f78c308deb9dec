package config

import "strings"

// ClientSide returns a copy of t that keeps only what the connections of
// a client process need (tls.enable and the tls.client.* keys): the
// server keys are back at their defaults, test mode off. mqadmin and
// `controller -probe` load this, as Java's tools build only the client
// side (TlsHelper.buildSslContext(true)), so a tls.config.file shared with
// a server on the same host (its key readable by the server's user only,
// enforcing mode) does not stop them.
func (t *TLS) ClientSide() *TLS {
	d := DefaultTLS()
	d.Enable, d.ConfigFile = t.Enable, t.ConfigFile
	d.ClientKeyPath, d.ClientKeyPassword, d.ClientCertPath = t.ClientKeyPath, t.ClientKeyPassword, t.ClientCertPath
	d.ClientAuthServer, d.ClientTrustCertPath = t.ClientAuthServer, t.ClientTrustCertPath
	for _, err := range t.loadErrs {
		if clientKeyErr(err) {
			d.loadErrs = append(d.loadErrs, err)
		}
	}
	return d
}

// clientKeyErr reports whether a load error (a value that did not parse;
// each names its key after the sentinel) concerns a key ClientSide keeps.
func clientKeyErr(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, ": tls.client.") || strings.Contains(msg, ": tls.enable ")
}
