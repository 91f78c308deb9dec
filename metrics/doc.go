// Package metrics serves Prometheus metrics and health endpoints for the
// NameServer and the Controller, with prometheus/client_golang.
//
// It is switched on by the keys Java's controller uses for its exporter:
// metricsExporterType=PROM, metricsPromExporterHost (empty = bindAddress)
// and metricsPromExporterPort (5557). An Endpoint then serves:
//
//   - /metrics: one Registry per process (its own prometheus.Registry, never
//     the global one) through promhttp.HandlerFor, with client_golang's Go
//     runtime (go_*) and process (process_*) collectors when built by
//     NewProcessRegistry;
//   - /healthz: 200 while the process serves HTTP;
//   - /readyz: 200 when every readiness check passes, 503 with the first
//     failing check's reason otherwise.
//
// EndpointConfig.Routes mounts further handlers on the same listener (the
// NameServer's address service, package nsaddr).
//
// Families:
//
//   - NewRemoting (prefix rocketmq_namesrv or rocketmq_controller): the
//     remoting.Observer of a server: requests and latency by request code
//     and response code (numbers; unknown codes are "other", no response
//     is "none"), open and opened connections, rejected frames by reason.
//   - NewNamesrv: route table sizes and route counters (RouteStats) read
//     from the NameServer at scrape time (GaugeFunc, CounterFunc), KV store
//     writes, KV sizes and readiness.
//   - NewController: elections by trigger and code, leadership, heartbeats,
//     role-change notifications and evictions recorded through
//     ControllerRecorder; Raft state, term, leader, commit and applied
//     index and master epochs per broker set read from a ControllerSource
//     at scrape time.
//
// Every label value is bounded (codes, triggers and reasons outside their
// tables become "other") or comes from the cluster's own configuration
// (Raft ids, broker set names). CounterVec, GaugeVec and HistogramVec wrap
// client_golang's vectors with positional With and check at construction
// that names need no escaping. Package metricstest parses what /metrics
// serves with prometheus/common/expfmt for tests.
//
// The Endpoint is bounded by Limits (the metrics* keys, see LimitsFrom):
// a connection cap, read-header, read, write and idle timeouts and a
// header size; its connections also count against the process's side
// budget (package internal/connlimit), so HTTP clients cannot take the
// file descriptors the remoting listener needs. At the cap a new
// connection takes the place of the oldest, so clients holding every
// place cannot lock out a liveness probe.
//
// This package does not import the controller (nor hashicorp/raft): the
// controller satisfies ControllerSource and drives ControllerRecorder.
package metrics
