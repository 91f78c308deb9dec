package config

import "time"

// GoAwayPeriod is the NameServer remoting server's GO_AWAY phase of a
// graceful shutdown (the Controller has none): shutdownWaitTimeSeconds when enableShutdownGracefully is on
// (Java's NettyRemotingServer.shutdown sleeps that long before closing),
// zero otherwise.
func (n *NettyServer) GoAwayPeriod() time.Duration {
	if !n.EnableShutdownGracefully {
		return 0
	}
	return time.Duration(n.ShutdownWaitTimeSeconds) * time.Second
}

// ShutdownBudget bounds a whole NameServer shutdown: the GO_AWAY phase, then
// shutdownWaitTimeSeconds for requests in flight to finish.
func (n *NettyServer) ShutdownBudget() time.Duration {
	return n.GoAwayPeriod() + time.Duration(n.ShutdownWaitTimeSeconds)*time.Second
}
