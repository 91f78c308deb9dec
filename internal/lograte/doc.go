// Package lograte bounds log lines that a stranger can cause at will (one
// per connection refused, per request denied, per garbage frame): a
// Limiter lets Burst lines through per window, the next line counting the
// ones left out, and Wrap puts one Limiter per message in front of an
// hclog.Logger, for every server that strangers reach (remoting, TLS,
// PROXY protocol, ACL, the NameServer and Controller, the metrics listener
// and hashicorp/raft with its transport). WithLimit gives some messages a
// stricter limiter of their own (one line per interval), sharing the rest.
package lograte
