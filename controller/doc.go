// Package controller is the domain core of the RocketMQ Controller (broker
// master election) of the Go NameServer, compiled only with the build tag
// `embedded_controller` (this file is the only one without the tag, so that
// the default build sees an empty package).
//
// It owns:
//   - the replicated state (per broker set: replica ids and addresses, master
//     id, master epoch, sync-state set and its epoch) and the FSM that applies
//     log entries to it (hashicorp/raft's raft.FSM);
//   - the log entry encoding (a type byte plus a JSON payload) and the
//     registry of event decoders;
//   - the leader-side command builders: pure functions of the state plus
//     heartbeat liveness that validate a request and return the response and
//     the events to append (apply broker id, register, elect master with
//     DefaultElectPolicy, alter sync-state set, clean broker data, reads);
//   - the fastjson-compatible JSON bodies and the header ext-field mapping;
//   - the per-node heartbeat manager (never replicated);
//   - the domain errors and the single table mapping them to Java response
//     codes.
//
// It must not know about the remoting wire codec, sockets, Raft wiring or
// timers beyond the heartbeat scan loop: the processor layer decodes frames,
// serialises all leader-gated work through one goroutine, appends the events
// with raft.Apply and answers after the apply future resolves.
package controller
