// Package metrics serves Prometheus metrics and health endpoints for the
// NameServer and the Controller.
//
// It is switched on by the keys Java's controller uses for its exporter:
// metricsExporterType=PROM, metricsPromExporterHost (empty = bindAddress)
// and metricsPromExporterPort (5557). An Endpoint then serves:
//
//   - /metrics: the text exposition format (0.0.4) of one Registry per
//     process (no global registry), with the Go runtime (go_*) and process
//     (process_*) families of NewProcessRegistry;
//   - /healthz: 200 while the process serves HTTP;
//   - /readyz: 200 when every readiness check passes, 503 with the first
//     failing check's reason otherwise.
//
// The exposition is written here rather than with prometheus/client_golang,
// whose dependencies are not in this module's go.sum: counters, gauges,
// histograms, scrape-time functions and collectors, rendered sorted by
// family name. Package metricstest parses the format strictly for tests.
//
// Families:
//
//   - NewRemoting (prefix rocketmq_namesrv or rocketmq_controller): the
//     remoting.Observer of a server: requests and latency by request code
//     and response code (numbers; unknown codes are "other", no response
//     is "none"), open and opened connections, rejected frames by reason.
//   - NewNamesrv: route table sizes and route counters read from
//     route.Manager.Stats at scrape time, KV store writes, KV sizes and
//     readiness.
//   - NewController: elections by trigger and code, leadership, heartbeats,
//     role-change notifications and evictions recorded through
//     ControllerRecorder; Raft state, term, leader, commit and applied
//     index and master epochs per broker set read from a ControllerSource
//     at scrape time.
//
// This package does not import the controller (nor hashicorp/raft): the
// controller satisfies ControllerSource and drives ControllerRecorder.
package metrics
