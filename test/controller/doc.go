// Package controllertest holds end-to-end tests of the Controller: three
// real controller nodes on loopback (real remoting servers and real Raft
// TCP transports on OS-chosen ports, BoltDB stores in temporary
// directories) driven by fake controller-mode brokers that follow the Java
// broker's script (docs/controller.md section 7; the brokers are
// test/brokerflow's, and TestBrokerFlow runs tools/brokerflow's whole flow
// with in-process NameServers), plus the golden
// replay of the Java 5.3 controller exchanges and failover measurements.
//
// Everything but this file needs -tags embedded_controller:
//
//	go test -race -tags embedded_controller ./test/controller/
//	go test -tags embedded_controller -run '^$' -bench . -benchtime 5x ./test/controller/
//
// Tests never sleep for an assertion: they poll with a deadline.
package controllertest
