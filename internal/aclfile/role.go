package aclfile

import "fmt"

// Permission is what a request code needs and what a role grants; each
// level includes the ones below it.
type Permission uint8

// Permission levels.
const (
	// PermRead reads routes, cluster, KV and config.
	PermRead Permission = iota + 1
	// PermBroker is what a Java broker sends besides reads: registration,
	// unregistration, heartbeats, topic registration and its controller
	// codes.
	PermBroker
	// PermAdmin changes state an operator owns: KV, write permissions,
	// topic deletion, config, designated elections, metadata cleaning.
	PermAdmin
)

// String returns the role name of p ("read", "broker", "admin").
func (p Permission) String() string {
	switch p {
	case PermRead:
		return "read"
	case PermBroker:
		return "broker"
	case PermAdmin:
		return "admin"
	}
	return fmt.Sprintf("permission(%d)", uint8(p))
}

// ParseRole returns the Permission of a role name.
func ParseRole(s string) (Permission, bool) {
	for _, p := range []Permission{PermRead, PermBroker, PermAdmin} {
		if p.String() == s {
			return p, true
		}
	}
	return 0, false
}
