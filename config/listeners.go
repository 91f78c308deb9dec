package config

// MetricsListener holds our keys bounding the metrics/HTTP endpoint
// (/metrics, /healthz, /readyz and the address service) of the NameServer
// and the Controller; Java's Prometheus exporter has none. Together with
// the Raft transport's inbound connections, the endpoint's connections
// also count against the side budget, a quarter of RLIMIT_NOFILE (see
// package internal/connlimit), so the remoting listener keeps the rest.
// They take effect when the endpoint starts.
type MetricsListener struct {
	// MetricsMaxConnections caps the endpoint's open connections; one
	// accepted over it takes the place of the oldest, closed at once.
	MetricsMaxConnections int `prop:"metricsMaxConnections"`
	// MetricsReadHeaderTimeoutSeconds bounds the reading of a request
	// header.
	MetricsReadHeaderTimeoutSeconds int `prop:"metricsReadHeaderTimeoutSeconds"`
	// MetricsReadTimeoutSeconds bounds the reading of a whole request.
	MetricsReadTimeoutSeconds int `prop:"metricsReadTimeoutSeconds"`
	// MetricsWriteTimeoutSeconds bounds the writing of a response.
	MetricsWriteTimeoutSeconds int `prop:"metricsWriteTimeoutSeconds"`
	// MetricsIdleTimeoutSeconds closes a keep-alive connection without a
	// request for this long.
	MetricsIdleTimeoutSeconds int `prop:"metricsIdleTimeoutSeconds"`
	// MetricsMaxHeaderBytes caps the header of a request.
	MetricsMaxHeaderBytes int `prop:"metricsMaxHeaderBytes"`
}

func defaultMetricsListener() MetricsListener {
	return MetricsListener{
		MetricsMaxConnections:           128,
		MetricsReadHeaderTimeoutSeconds: 5,
		MetricsReadTimeoutSeconds:       10,
		MetricsWriteTimeoutSeconds:      30,
		MetricsIdleTimeoutSeconds:       60,
		MetricsMaxHeaderBytes:           16 << 10,
	}
}

// RaftInbound holds our key bounding the Raft transport's inbound
// connections (controller only). Each peer holds at most 3 pooled
// connections, a pipeline and a snapshot stream to every other peer, so
// the default leaves room for groups far larger than Raft is run with.
type RaftInbound struct {
	// ControllerRaftMaxInboundConnections caps the open inbound
	// connections of the Raft transport; one accepted over it takes the
	// place of the oldest connection not yet proven a peer (answered, or
	// TLS-authenticated), closed at once, or is closed itself when there
	// is none. A connection that sends nothing within 10 s is closed too.
	ControllerRaftMaxInboundConnections int `prop:"controllerRaftMaxInboundConnections"`
}

func defaultRaftInbound() RaftInbound { return RaftInbound{ControllerRaftMaxInboundConnections: 128} }
