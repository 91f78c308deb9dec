// Package ctlbroker plays controller-mode RocketMQ brokers against running
// Controllers and NameServers, exactly as a Java 5.3 broker with
// enableControllerMode=true talks to them (docs/controller.md section 7).
//
// A Broker listens on its own loopback port (127.0.0.1:0), advertises that
// address, and receives NOTIFY_BROKER_ROLE_CHANGED (1008) there. It keeps
// one connection per controller and per NameServer, finds the controller
// leader with CONTROLLER_GET_METADATA_INFO (1005) and re-discovers it on
// CONTROLLER_NOT_LEADER (2007). An answer of 1 to 1013, 1003 or 1002 (a
// leader that lost its lease with the entry in flight: the outcome is
// unknown) is sent again, as the Java broker retries these steps.
// Everything travels as raw remoting frames
// (ext fields and JSON bodies), so the package does not link the controller
// or Raft and builds with and without -tags embedded_controller.
//
// Run drives a whole broker set through the script: leader discovery, id
// assignment (1012/1013), registration (1003), heartbeats (904), the first
// election (1002), NameServer registration as master or slave (103), the
// sync-state set grown (1001) and read back (1006), a master failover (its
// connections closed, its heartbeats stopped) observed through the 1008
// the survivors receive, and the old master's return as a slave.
// tools/brokerflow is its command line; test/controllertest runs it against an
// in-process cluster.
package ctlbroker
