// Command controller runs a standalone RocketMQ Controller (Java's
// mqcontroller): broker master election replicated with Raft, serving the
// controller protocol to brokers in controller mode
// (enableControllerMode=true, controllerAddr=...).
//
// Usage:
//
//	controller -c controller.properties   run until SIGTERM/SIGINT
//	controller -c FILE -p                 print every config item and exit
//	controller -probe "a:p;b:p" [-wait 30s]
//	                                      ask each controller for its metadata
//	                                      (1005) and wait for a ready leader
//
// The controller itself is compiled only with -tags embedded_controller;
// the default build keeps -probe and otherwise exits 1.
package main
