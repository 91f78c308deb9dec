// Package fakebroker is an in-process stand-in for a RocketMQ 5.x broker,
// for integration tests and load tools.
//
// A Broker listens on a loopback port with remoting.Server and talks to
// NameServers over remoting.Client exactly as a Java 5.3 broker does:
// REGISTER_BROKER (103) with the ext fields of docs/protocol.md section 2.2 and a
// RegisterBrokerBody built by wire.EncodeRegisterBody, UNREGISTER_BROKER
// (104), QUERY_DATA_VERSION (322) and BROKER_HEARTBEAT (904).
//
// On its own port it answers what a rocketmq-client-go producer sends to a
// broker: HEART_BEAT (34), UNREGISTER_CLIENT (35), SEND_MESSAGE (10),
// SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320). Sent messages are
// recorded and can be awaited (WaitMessage); every other request, including
// NOTIFY_MIN_BROKER_ID_CHANGE (905) pushed by a NameServer over either the
// broker's port or its NameServer connections, is recorded too (WaitRequest).
package fakebroker
