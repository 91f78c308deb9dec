// Package connlimit bounds the connections of the side listeners (the
// metrics/HTTP endpoint and the Raft transport's inbound side), so that no
// stranger can take the file descriptors the remoting listener needs.
//
// A Listener holds at most its own cap (a key of the bounds table) and,
// with the other side listeners, at most the process-wide side Budget.
// A connection over either takes the place of the oldest unproven
// connection (of this listener at its cap, of any side listener over
// the budget), which is closed at once: whoever fills the places without
// proving itself cannot lock out a health probe or a Raft peer. A
// connection is proven by Prove (a Raft peer whose certificate was
// verified) or, with Config.ProveOnWrite, by its first answer (a plain
// Raft peer that sent a whole RPC); an HTTP client never is. Only when
// every connection in the way is proven is the new one closed instead.
// Either way the accept loop never blocks, and the peer closed sees its
// connection end.
//
// The side budget is a quarter of RLIMIT_NOFILE (read once, at the first
// side listener): side listeners together never hold more, and the other
// three quarters stay for the remoting listener's connections, the
// process's outgoing dials (905 notifications, warm-up forwards, Raft's
// pooled peers), its stores and the runtime.
package connlimit
