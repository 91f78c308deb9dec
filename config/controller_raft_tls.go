package config

import (
	"errors"
	"strings"

	"github.com/rmqgo/nameserver/internal/certreload"
)

// RaftTLS holds our keys for optional mutual TLS on the Raft transport
// between controllers (DLedger has no counterpart). Every peer presents
// the certificate and key of its own files and accepts a peer only if
// that peer's chain verifies against the CA certificates of
// controllerRaftTlsTrustCertPath; host names are not checked.
type RaftTLS struct {
	ControllerRaftTlsEnable        bool   `prop:"controllerRaftTlsEnable"`
	ControllerRaftTlsCertPath      string `prop:"controllerRaftTlsCertPath,omitempty"`
	ControllerRaftTlsKeyPath       string `prop:"controllerRaftTlsKeyPath,omitempty"`
	ControllerRaftTlsTrustCertPath string `prop:"controllerRaftTlsTrustCertPath,omitempty"`
}

// raftTLSKeys names the key of each file role.
var raftTLSKeys = map[certreload.Role]string{
	certreload.RoleCert:  "controllerRaftTlsCertPath",
	certreload.RoleKey:   "controllerRaftTlsKeyPath",
	certreload.RoleTrust: "controllerRaftTlsTrustCertPath",
}

// raftTLSRules checks, when controllerRaftTlsEnable=true, that the three
// paths are set and their files load (certreload.Load): one error per bad
// key, naming the key and the file.
func (t *RaftTLS) raftTLSRules(r *rules) {
	if !t.ControllerRaftTlsEnable {
		return
	}
	paths := map[certreload.Role]string{certreload.RoleCert: t.ControllerRaftTlsCertPath,
		certreload.RoleKey: t.ControllerRaftTlsKeyPath, certreload.RoleTrust: t.ControllerRaftTlsTrustCertPath}
	missing := false
	for _, role := range []certreload.Role{certreload.RoleCert, certreload.RoleKey, certreload.RoleTrust} {
		if strings.TrimSpace(paths[role]) == "" {
			r.addf("%s is missing (controllerRaftTlsEnable=true needs it)", raftTLSKeys[role])
			missing = true
		}
	}
	if missing {
		return
	}
	_, err := certreload.Load(t.ControllerRaftTlsCertPath, t.ControllerRaftTlsKeyPath, t.ControllerRaftTlsTrustCertPath)
	for _, fe := range fileErrors(err) {
		r.addf("%s (%s): %v", raftTLSKeys[fe.Role], fe.Path, fe.Err)
	}
}

// fileErrors flattens what certreload.Load returned.
func fileErrors(err error) []*certreload.FileError {
	var fe *certreload.FileError
	if errors.As(err, &fe) && err == error(fe) {
		return []*certreload.FileError{fe}
	}
	var out []*certreload.FileError
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, fileErrors(e)...)
		}
	}
	return out
}
