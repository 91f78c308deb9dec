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
//   - the snapshot codec (snapshot.go: version 2, length-prefixed bytes,
//     streamed both ways; version 1 JSON still read), which carries every
//     state Apply can produce;
//   - the leader-side command builders: pure functions of the state plus
//     heartbeat liveness that validate a request and return the response and
//     the events to append (apply broker id, register, elect master with
//     defaultElectPolicy, alter sync-state set, clean broker data, reads);
//   - the validation boundary of the replicated state (field_rules.go, validated_commands.go):
//     names, addresses and check codes are parsed into types only field_rules.go
//     makes, by the builders with the configured bounds and again by Apply
//     with hard ceilings; the accounted state size kept incrementally
//     (statesize.go);
//   - the per-node heartbeat manager (never replicated);
//   - the domain errors and the single table mapping them to Java response
//     codes.
//
// The headers, bodies and their fastjson JSON are package controller/wire
// (untagged, shared with the admin client and the tests).
//
// The domain files (state, events, FSM, commands, elect, heartbeat) know
// nothing of sockets, Raft wiring or timers beyond the
// heartbeat scan loop. The server layer on top of them is the running
// Controller (New, Start, Shutdown):
//   - server.go binds the broker-facing remoting port (the self entry of
//     controllerDLegerPeers) and the Raft transport (controllerRaftPeers),
//     opens raftstore (bootstrap on first start) and wires everything;
//   - processor.go registers Java's 12 codes: leader-gated codes are
//     decoded, then answered 2007 unless this node is the ready leader;
//     904, 1005, 1009 and 1010 are answered by any node;
//   - package sched orders the leader-side work per broker set (Java's
//     EventScheduler runs it all on one thread): each task carries keys
//     (sched.Keys: its broker sets, plus one growth key for the tasks
//     that can grow the state or touch tombstones; global past 64 names)
//     and waits only for the earlier live tasks sharing a key; run_command.go
//     builds from the FSM, raft.Applies one entry, answers from the
//     applied result (5 s bound, else code 1), and holds the task's keys
//     until that entry is applied or lost, so concurrent sets share Raft's
//     batches and fsyncs; fence.go makes Apply refuse an event built on a
//     state that has since moved;
//   - members.go serves this project's membership requests (42001-42004)
//     on the ready leader through raftstore; members_drift.go compares
//     controllerRaftPeers with the Raft configuration at start and on every
//     reconcile (WARN, metric, 1005 field);
//   - leader.go opens the leader gate after a Barrier in the current term,
//     closes it on loss, and runs the inactive-master scan (T2);
//   - election_loop.go turns inactive masters (heartbeat expiry, connection
//     close) into controller-triggered elections with Java's retry loop;
//   - notifier.go sends NOTIFY_BROKER_ROLE_CHANGED to brokers' own ports;
//   - options.go holds the options (pre-made listeners, transports or Raft
//     node for tests) and the Observer metrics hooks.
package controller
