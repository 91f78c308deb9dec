// Package acl owns request authentication and authorization for the
// NameServer and the Controller: RocketMQ's ACL 1.0 request signature (the
// one every client signs with: Java's AclClientRPCHook, rocketmq-client-go's
// WithCredentials), the accounts file (in the spirit of Java's
// plain_acl.yml, read and checked by internal/aclfile, with the roles and
// IP address patterns) and its reload, the table of the permission each
// request code needs, and the denial answer, log and count.
//
// # Signature
//
// A signed request carries extFields AccessKey, Signature and optionally
// SecurityToken. Signature is base64(HMAC-SHA1(secretKey, content)), where
// content is the values of every other extField (AccessKey and
// SecurityToken included) in the order of their keys as Java's TreeMap sorts
// them (String.compareTo: UTF-16 code units), concatenated as UTF-8, then
// the body (AclUtils.combineRequestContent, AclClientRPCHook,
// DefaultAuthenticationContextBuilder). Nothing in it ties a request to a
// time or a connection, so a captured request can be replayed: run ACL
// over TLS.
//
// # Roles
//
// Our own role model instead of Java's per-topic permissions: read < broker
// < admin. Every request code needs one of them (Required); an account has
// one (role: read, broker or admin; Java's admin: true means admin). A
// request without AccessKey is anonymous: it may run read codes when
// anonymous reads are allowed, nothing else.
//
// # Addresses
//
// globalWhiteRemoteAddresses and an account's whiteRemoteAddress take
// Java's patterns (RemoteAddressStrategyFactory): "*", "192.168.0.*",
// "192.168.1.1-10", "192.168.0.{1,2}", IPv6 alike, plus CIDR prefixes.
// Unlike Java, where a match skips the signature check, ours restrict: when
// the global list is not empty, only its addresses are served, and an
// account with whiteRemoteAddress may be used only from there (and must
// still sign).
package acl
