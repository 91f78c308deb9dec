// Package connlimit bounds the connections of the side listeners (the
// metrics/HTTP endpoint and the Raft transport's inbound side), so that no
// stranger can take the file descriptors the remoting listener needs.
//
// A Listener admits a connection only while its own cap (a key of the
// bounds table) and the process-wide side Budget both have room; a
// connection over either is accepted and closed at once, so the accept
// loop never blocks and the refused peer sees its connection end.
//
// The side budget is a quarter of RLIMIT_NOFILE (read once, at the first
// side listener): side listeners together never hold more, and the other
// three quarters stay for the remoting listener's connections, the
// process's outgoing dials (905 notifications, warm-up forwards, Raft's
// pooled peers), its stores and the runtime.
package connlimit
