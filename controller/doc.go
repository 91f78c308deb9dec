// Package controller is the RocketMQ Controller (broker master election)
// of the Go NameServer, compiled only with the build tag
// `embedded_controller` (this file is the only one without the tag, so that
// the default build sees an empty package).
//
// Two packages below it own what is not replicated and not the node:
//   - controller/liveness: the per-node heartbeat table (never
//     replicated: brokers beat to every controller), its bounds, the
//     expiry scan and connection close that report inactive brokers, and
//     the warm-up after which the table is a complete view of liveness;
//   - controller/sched: the order of the leader's work per broker set
//     (each task carries keys and waits only for the earlier live tasks
//     sharing one) and the bounds of live tasks.
//
// The headers, bodies and their fastjson JSON are package controller/wire
// (untagged, shared with the admin client and the tests).
//
// The replicated core: files that know nothing of sockets, Raft wiring or
// timers:
//   - state.go, events.go, fsm.go: the replicated state (per broker set:
//     replica ids and addresses, master id, master epoch, sync-state set
//     and its epoch), the log entry encoding (a type byte plus a JSON
//     payload) with the registry of event decoders, and the FSM that
//     applies entries (hashicorp/raft's raft.FSM);
//   - fence.go: Apply refuses an event built on a state that has since
//     moved; tombstone.go: the epochs a cleaned set leaves behind;
//   - builders.go, election.go, election_policy.go: the leader-side
//     command builders, pure functions of the state plus liveness that
//     validate a request and return the response and the events to append
//     (apply broker id, register, elect master, alter sync-state set,
//     clean broker data, reads);
//   - field_rules.go, validated_commands.go: the validation boundary of
//     the replicated state (names, addresses and check codes parsed into
//     types only field_rules.go makes, by the builders with the configured
//     bounds and again by Apply with hard ceilings); statesize.go and
//     reserve.go: the accounted state size, kept incrementally, and the
//     growth reserved by builders until their entry is applied;
//   - snapshot.go, snapshot_binary.go: the snapshot codec (versions 2 and
//     3, length-prefixed bytes, streamed both ways), which carries every
//     state Apply can produce; entry_format.go: the formats a node reads
//     and the cluster version that lets the group write them;
//   - legacy.go: every path that only reads what earlier versions wrote
//     (version 1 JSON snapshots, unchecked log entries);
//   - errors.go: the domain errors and the single table mapping them to
//     Java response codes (2000-2016 are remoting's constants).
//
// The node on top of them is the running Controller (New, Start, Shutdown):
//   - server.go binds the broker-facing remoting port (the self entry of
//     controllerDLegerPeers) and the Raft transport (controllerRaftPeers),
//     opens raftstore (bootstrap on first start) and wires everything;
//   - processor.go registers Java's 12 codes: leader-gated codes are
//     decoded, then answered 2007 unless this node is the ready leader;
//     904, 1005, 1009 and 1010 are answered by any node;
//   - run_command.go runs a leader-side command as a sched task: it builds
//     from the FSM, raft.Applies one entry, answers from the applied
//     result (5 s bound, else code 1), and holds the task's keys until
//     that entry is applied or lost, so concurrent sets share Raft's
//     batches and fsyncs;
//   - leader.go opens the leader gate after a Barrier in the current term
//     and closes it on loss;
//   - elections the controller starts itself: election_trigger.go (an
//     inactive broker reported by liveness, held until the view is
//     complete), election_inactive.go (the term's queue of inactive
//     brokers, one pass per batch), election_scan.go (the periodic scan
//     for inactive masters), election_loop.go (one loop per set, Java's
//     retries, paced);
//   - notifier.go and notifypool.go send NOTIFY_BROKER_ROLE_CHANGED to
//     brokers' own ports (notifypool.go keeps a bounded pool of those
//     connections); resend.go: a new ready leader sends again the roles
//     of the sets this node saw elect within the last seconds;
//   - members.go serves this project's membership requests (42001-42004)
//     on the ready leader through raftstore; members_drift.go compares
//     controllerRaftPeers with the Raft configuration at start and on every
//     reconcile (WARN, metric, 1005 field);
//   - clusterversion.go raises the replicated cluster version once every
//     node reads it; acl.go, tls.go, raft_transport.go, backup.go: access
//     control, TLS, the Raft transport and backups;
//   - options.go holds the options (pre-made listeners, transports or Raft
//     node for tests) and the Observer metrics hooks.
package controller
