// Package integration holds end-to-end tests of the NameServer: a real
// namesrv.Server on loopback (in-process) and the real cmd/namesrv binary,
// driven over the wire by test/fakebroker and by the rocketmq-client-go v2
// admin, producer and pull consumer.
//
// The binary is built once per test run (with -tags embedded_controller
// when the tests are) into a temporary directory. Tests never sleep for an
// assertion: they poll with a deadline.
package integration
