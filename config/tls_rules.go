package config

import (
	"os"
	"slices"
	"strings"
)

// Validate reports every broken TLS rule at once (errors.Join; each wraps
// ErrInvalid and names its key): unparsable values, unknown mode and
// client-auth names, a certificate without its key (or the reverse),
// enforcing mode with neither a certificate nor test mode, and every named
// file that cannot be read. Whether the files hold a usable certificate and
// key is checked when they are loaded (package tlsconf).
func (t *TLS) Validate() error {
	r := &rules{errs: slices.Clone(t.loadErrs)}
	t.modeRules(r)
	pairRule(r, "tls.server", t.ServerCertPath, t.ServerKeyPath)
	pairRule(r, "tls.client", t.ClientCertPath, t.ClientKeyPath)
	for _, f := range t.files() {
		readableRule(r, f.key, f.path)
	}
	return joinUnique(r.errs)
}

func (t *TLS) modeRules(r *rules) {
	if !slices.Contains([]string{TLSModeDisabled, TLSModePermissive, TLSModeEnforcing}, t.Mode()) {
		r.addf("tls.server.mode (%s) must be one of disabled, permissive, enforcing", t.ServerMode)
	}
	if !slices.Contains([]string{TLSClientAuthNone, TLSClientAuthOptional, TLSClientAuthRequire}, t.ClientAuth()) {
		r.addf("tls.server.need.client.auth (%s) must be one of none, optional, require", t.ServerNeedClientAuth)
	}
	if t.Mode() == TLSModeEnforcing && !t.ServerCertConfigured() && !t.TestModeEnable {
		r.addf("tls.server.mode (enforcing) needs tls.server.certPath and tls.server.keyPath, or tls.test.mode.enable=true")
	}
}

func pairRule(r *rules, side, cert, key string) {
	if cert != "" && key == "" {
		r.addf("%s.keyPath must be set when %s.certPath (%s) is", side, side, cert)
	}
	if key != "" && cert == "" {
		r.addf("%s.certPath must be set when %s.keyPath (%s) is", side, side, key)
	}
}

func readableRule(r *rules, key, path string) {
	if path == "" {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		r.addf("%s (%s) cannot be read: %v", key, path, err)
		return
	}
	_ = f.Close()
}

// tlsFile is one file named by a TLS key.
type tlsFile struct{ key, path string }

func (t *TLS) files() []tlsFile {
	return []tlsFile{
		{"tls.server.certPath", t.ServerCertPath}, {"tls.server.keyPath", t.ServerKeyPath},
		{"tls.server.trustCertPath", t.ServerTrustCertPath},
		{"tls.client.certPath", t.ClientCertPath}, {"tls.client.keyPath", t.ClientKeyPath},
		{"tls.client.trustCertPath", t.ClientTrustCertPath},
	}
}

// Mode returns tls.server.mode trimmed and lower-cased.
func (t *TLS) Mode() string { return strings.ToLower(strings.TrimSpace(t.ServerMode)) }

// ClientAuth returns tls.server.need.client.auth trimmed and lower-cased
// (Java compares it case-insensitively); empty means none.
func (t *TLS) ClientAuth() string {
	s := strings.ToLower(strings.TrimSpace(t.ServerNeedClientAuth))
	if s == "" {
		return TLSClientAuthNone
	}
	return s
}
