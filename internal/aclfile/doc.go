// Package aclfile reads the ACL accounts file (in the spirit of Java's
// plain_acl.yml): its YAML, every rule an account must keep, the roles
// (read < broker < admin) and the remote-address patterns. It knows
// nothing of requests: package acl builds the authorizer, the code ->
// permission table and request signing on it, and package config reads
// an account's role to validate controllerAccessKey without linking the
// remoting protocol.
package aclfile
