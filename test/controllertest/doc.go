// Package controllertest holds end-to-end tests of the Controller: three
// real controller nodes on loopback (real remoting servers and real Raft
// TCP transports on OS-chosen ports, BoltDB stores in temporary
// directories) driven by fake controller-mode brokers that follow the Java
// broker's script (docs/controller.md section 7; the brokers are
// test/ctlbroker's, and TestBrokerFlow runs tools/brokerflow's whole flow
// with in-process NameServers), plus the golden
// replay of the Java 5.3 controller exchanges and failover measurements.
//
// Everything but this file needs -tags embedded_controller:
//
//	go test -race -tags embedded_controller ./test/controllertest/
//	go test -tags embedded_controller -run '^$' -bench . -benchtime 5x ./test/controllertest/
//
// The TestFault* tests inject faults (raftstore.DiskFaults on the nodes'
// log writes, a TCP proxy per ordered pair of nodes on the Raft links,
// in-process kill and restart, SIGSTOP/SIGKILL on real processes) under a
// workload of one-attempt clients whose requests, replies and 1008
// notifications are recorded; every message is checked (one master per
// masterEpoch, the master in its sync-state set, epochs never decreasing per
// client, no acknowledged write lost) and the history is checked with
// porcupine against a model of one broker set. TestFaultLeaderKilledDuringFailoverStorm
// runs a fleet (100 sets; 1,000 under RMQ_TEST_LONG=1): a third of the
// masters lose their connections at once and the Raft leader is killed
// while their elections are in flight; each set's history takes the same
// checks. TestFaultRandomized runs
// seeds 1-3; RMQ_TEST_LONG=1 runs 100 seeds and RMQ_SEED=N replays one:
//
//	RMQ_TEST_LONG=1 go test -tags embedded_controller -run TestFault -timeout 60m ./test/controllertest/
//
// Tests never sleep for an assertion: they poll with a deadline.
package controllertest
