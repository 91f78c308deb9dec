package namesrv

import (
	"fmt"
	"sync/atomic"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/remoting"
)

// aclCheck is the NameServer's ACL check (aclEnable): the authorizer and
// the counter of its denials (set once metrics exist).
type aclCheck struct {
	az     *acl.Authorizer
	denied atomic.Pointer[metrics.ACL]
}

// newACLCheck loads the accounts file when aclEnable is set; nil when ACL
// is off. An unusable file fails with its path and aclConfigPath named.
func (s *Server) newACLCheck() (*aclCheck, error) {
	cfg := s.cfg.Load()
	if !cfg.AclEnable {
		return nil, nil
	}
	a := &aclCheck{}
	az, err := acl.New(acl.Options{Path: cfg.AclConfigPath, AnonymousRead: cfg.AclAnonymousRead,
		Logger: s.log.Named("acl"), OnDeny: func(p acl.Permission) { a.denied.Load().Denied(p.String()) }})
	if err != nil {
		return nil, fmt.Errorf("aclConfigPath: %w", err)
	}
	a.az = az
	return a, nil
}

// bindMetrics registers the denial counter when metrics are on.
func (a *aclCheck) bindMetrics(m *serverMetrics) {
	if a != nil && m != nil {
		a.denied.Store(metrics.NewACL(m.reg, metrics.NamesrvPrefix))
	}
}

func (a *aclCheck) close() {
	if a != nil {
		a.az.Close()
	}
}

// authorize is the remoting.ServerConfig.Authorize hook: nil when ACL is
// off.
func (a *aclCheck) authorize() func(*remoting.Conn, *remoting.Command) *remoting.Command {
	if a == nil {
		return nil
	}
	return a.az.Authorize
}
