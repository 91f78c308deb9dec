package metrics

// ACL counts the requests the ACL check denied (package acl), by the
// permission they needed.
type ACL struct{ denied *CounterVec }

// NewACL registers <prefix>_acl_denied_total{permission} in reg.
func NewACL(reg *Registry, prefix string) *ACL {
	a := &ACL{denied: NewCounterVec(prefix+"_acl_denied_total",
		"Requests denied by the ACL check (answered 16 or, oneway, dropped), by the permission they needed.",
		"permission")}
	reg.Register(a.denied)
	return a
}

// Denied counts one denied request; a nil *ACL counts nothing.
func (a *ACL) Denied(permission string) {
	if a != nil {
		a.denied.With(permission).Inc()
	}
}
