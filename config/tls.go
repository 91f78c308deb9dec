package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/rmqgo/nameserver/internal/pemfile"
	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// TLS server modes (Java's TlsMode names).
const (
	TLSModeDisabled   = "disabled"
	TLSModePermissive = "permissive"
	TLSModeEnforcing  = "enforcing"
)

// TLS client-certificate demands of a server (Java's
// tls.server.need.client.auth values, Netty's ClientAuth).
const (
	TLSClientAuthNone     = "none"
	TLSClientAuthOptional = "optional"
	TLSClientAuthRequire  = "require"
)

// DefaultTLSConfigFile is Java's TlsSystemConfig.tlsConfigFile default.
const DefaultTLSConfigFile = "/etc/rocketmq/tls.properties"

// TLSConfigFileKey names the file of TLS keys (Java's tls.config.file).
const TLSConfigFileKey = "tls.config.file"

// TLS holds Java's TlsSystemConfig keys: the server side of the remoting
// and metrics listeners and the client side of the connections this
// process opens (905 and 1008 notifications, controller probes, mqadmin).
type TLS struct {
	ServerMode           string `prop:"tls.server.mode"`
	TestModeEnable       bool   `prop:"tls.test.mode.enable"`
	ServerNeedClientAuth string `prop:"tls.server.need.client.auth"`
	ServerKeyPath        string `prop:"tls.server.keyPath"`
	ServerKeyPassword    string `prop:"tls.server.keyPassword"`
	ServerCertPath       string `prop:"tls.server.certPath"`
	ServerAuthClient     bool   `prop:"tls.server.authClient"`
	ServerTrustCertPath  string `prop:"tls.server.trustCertPath"`
	// Enable makes the clients of this process (mqadmin, and the
	// connections a server opens) speak TLS (Java's tls.enable).
	Enable              bool   `prop:"tls.enable"`
	ClientKeyPath       string `prop:"tls.client.keyPath"`
	ClientKeyPassword   string `prop:"tls.client.keyPassword"`
	ClientCertPath      string `prop:"tls.client.certPath"`
	ClientAuthServer    bool   `prop:"tls.client.authServer"`
	ClientTrustCertPath string `prop:"tls.client.trustCertPath"`
	ConfigFile          string `prop:"tls.config.file"`

	loadErrs []error
}

// DefaultTLS returns the defaults: Java's, except tls.test.mode.enable,
// which is false (Java: true) so that no server ever presents a generated
// certificate nobody asked for.
func DefaultTLS() *TLS {
	return &TLS{
		ServerMode:           TLSModePermissive,
		ServerNeedClientAuth: TLSClientAuthNone,
		ConfigFile:           DefaultTLSConfigFile,
	}
}

// LoadTLS builds the TLS settings from property layers, later layers
// winning: fileProps (the -c file), then the file named by tls.config.file
// (as set by either layer, else Java's default path; a missing default
// file is skipped, a missing named one is an error), then cmdProps (-D
// flags). Only tls.* keys are read. Per-key parse errors are kept for
// Validate; LoadTLS fails only when the tls.config.file cannot be read.
func LoadTLS(fileProps, cmdProps map[string]string) (*TLS, error) {
	t := DefaultTLS()
	explicit := false
	for _, layer := range []map[string]string{fileProps, cmdProps} {
		if _, ok := layer[TLSConfigFileKey]; ok {
			explicit = true
		}
		t.apply(layer)
	}
	tlsFile, err := readTLSFile(t.ConfigFile, explicit)
	if err != nil {
		return nil, err
	}
	t.loadErrs = nil
	for _, layer := range []map[string]string{fileProps, tlsFile, cmdProps} {
		t.apply(layer)
	}
	return t, nil
}

func (t *TLS) apply(props map[string]string) {
	t.loadErrs = append(t.loadErrs, applyProps(bindings(t), onlyTLSKeys(props))...)
}

func onlyTLSKeys(props map[string]string) map[string]string {
	out := make(map[string]string)
	for k, v := range props {
		if strings.HasPrefix(k, tlsKeyPrefix) {
			out[k] = v
		}
	}
	return out
}

func readTLSFile(path string, explicit bool) (map[string]string, error) {
	if strings.TrimSpace(path) == "" {
		return nil, nil
	}
	data, err := pemfile.Read(path)
	if !explicit && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var props map[string]string
	if err == nil {
		props, err = parseProperties(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s (%s): %w", ErrLoad, TLSConfigFileKey, path, err)
	}
	return props, nil
}

// ServerCertConfigured reports whether a server certificate and key are named.
func (t *TLS) ServerCertConfigured() bool {
	return t.ServerCertPath != "" && t.ServerKeyPath != ""
}

// Clone returns a copy.
func (t *TLS) Clone() *TLS {
	n := *t
	n.loadErrs = slices.Clone(t.loadErrs)
	return &n
}

// Properties returns the settings as tls.* properties, passwords masked.
func (t *TLS) Properties() map[string]string {
	out := map[string]string{}
	renderInto(out, bindings(t))
	return redactSecrets(out)
}

// redactSecrets masks every non-empty *password value (case-insensitive),
// so a config shown remotely never carries a key password.
func redactSecrets(props map[string]string) map[string]string {
	out := maps.Clone(props)
	for k, v := range out {
		if v != "" && strings.HasSuffix(strings.ToLower(k), "password") {
			out[k] = "******"
		}
	}
	return out
}

// tlsKeyPrefix starts every TLS key; no remote update may change one
// (certificates, keys, passwords and modes are what a node is).
const tlsKeyPrefix = "tls."

// RawProperties returns a copy of the properties read from the -c file
// (LoadTLS reads the tls.* keys among them).
func (cc *ControllerConfig) RawProperties() map[string]string { return maps.Clone(cc.raw) }

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
	// watchedfile.Open refuses what is not a regular file (a FIFO without
	// waiting for a writer); the error carries the path.
	f, _, err := watchedfile.Open(path)
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
