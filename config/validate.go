package config

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// rules collects broken rules, each wrapping ErrInvalid and naming its key.
type rules struct{ errs []error }

func (r *rules) addf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...))
}

func (r *rules) port(key string, v, lo int) {
	if v < lo || v > 65535 {
		r.addf("%s (%d) must be between %d and 65535", key, v, lo)
	}
}

func (r *rules) positive(key string, v int64) {
	if v <= 0 {
		r.addf("%s (%d) must be positive", key, v)
	}
}

func (r *rules) nonNegative(key string, v int64) {
	if v < 0 {
		r.addf("%s (%d) must not be negative", key, v)
	}
}

func (r *rules) nonEmpty(key, v string) {
	if strings.TrimSpace(v) == "" {
		r.addf("%s must not be empty", key)
	}
}

func (r *rules) host(key, v string) {
	if v != "" && net.ParseIP(v) == nil && strings.ContainsAny(v, " \t:/[]") {
		r.addf("%s (%s) is not an IP address or host name", key, v)
	}
}

func (r *rules) metricsType(v string) {
	if !slices.Contains([]string{"", "DISABLE", "OTLP_GRPC", "PROM", "LOG"}, v) {
		r.addf("metricsExporterType (%s) must be one of DISABLE, OTLP_GRPC, PROM, LOG", v)
	}
}

// Validate reports every broken rule at once (errors.Join; each error wraps
// ErrInvalid and names its key): parse errors of the -c file, ports in range,
// positive pool sizes, capacities and intervals, frameMaxLength >= 1 MiB,
// non-empty paths, the Prometheus port apart from the listen address, and the
// embedded controller (see validateController: in a build without
// -tags embedded_controller, enableControllerInNamesrv=true is an error).
func (c *NamesrvConfig) Validate() error {
	r := &rules{errs: slices.Clone(c.loadErrs)}
	c.namesrvRules(r)
	c.NettyServer.rules(r)
	c.extraRules(r)
	r.errs = append(r.errs, validateController(c)...)
	return joinUnique(r.errs)
}

func (c *NamesrvConfig) namesrvRules(r *rules) {
	r.nonEmpty("kvConfigPath", c.KVConfigPath)
	r.nonEmpty("configStorePath", c.ConfigStorePath)
	r.positive("clientRequestThreadPoolNums", int64(c.ClientRequestThreadPoolNums))
	r.positive("clientRequestThreadPoolQueueCapacity", int64(c.ClientRequestThreadPoolQueueCapacity))
	r.positive("defaultThreadPoolNums", int64(c.DefaultThreadPoolNums))
	r.positive("defaultThreadPoolQueueCapacity", int64(c.DefaultThreadPoolQueueCapacity))
	r.positive("scanNotActiveBrokerInterval", c.ScanNotActiveBrokerInterval)
	r.positive("unRegisterBrokerQueueCapacity", int64(c.UnRegisterBrokerQueueCapacity))
	r.nonNegative("waitSecondsForService", int64(c.WaitSecondsForService))
}

func (n *NettyServer) rules(r *rules) {
	r.port("listenPort", n.ListenPort, 0)
	r.host("bindAddress", n.BindAddress)
	r.positive("serverWorkerThreads", int64(n.ServerWorkerThreads))
	r.positive("serverSelectorThreads", int64(n.ServerSelectorThreads))
	r.positive("serverOnewaySemaphoreValue", int64(n.ServerOnewaySemaphoreValue))
	r.positive("serverAsyncSemaphoreValue", int64(n.ServerAsyncSemaphoreValue))
	r.positive("serverSocketBacklog", int64(n.ServerSocketBacklog))
	r.nonNegative("serverCallbackExecutorThreads", int64(n.ServerCallbackExecutorThreads))
	r.nonNegative("serverChannelMaxIdleTimeSeconds", int64(n.ServerChannelMaxIdleTimeSeconds))
	r.nonNegative("serverSocketSndBufSize", int64(n.ServerSocketSndBufSize))
	r.nonNegative("serverSocketRcvBufSize", int64(n.ServerSocketRcvBufSize))
	r.nonNegative("writeBufferHighWaterMark", int64(n.WriteBufferHighWaterMark))
	r.nonNegative("writeBufferLowWaterMark", int64(n.WriteBufferLowWaterMark))
	r.nonNegative("shutdownWaitTimeSeconds", int64(n.ShutdownWaitTimeSeconds))
	if n.WriteBufferHighWaterMark > 0 && n.WriteBufferLowWaterMark > n.WriteBufferHighWaterMark {
		r.addf("writeBufferLowWaterMark (%d) must not exceed writeBufferHighWaterMark (%d)",
			n.WriteBufferLowWaterMark, n.WriteBufferHighWaterMark)
	}
}

func (c *NamesrvConfig) extraRules(r *rules) {
	if c.FrameMaxLength < MiB {
		r.addf("frameMaxLength (%d) must be at least 1 MiB (%d)", c.FrameMaxLength, MiB)
	}
	r.positive("serverChannelMaxPendingResponseBytes", c.ServerChannelMaxPendingResponseBytes)
	r.positive("serverPartialFrameBudgetBytes", c.ServerPartialFrameBudgetBytes)
	r.positive("serverMaxConnections", int64(c.ServerMaxConnections))
	r.nonNegative("readyAfterBrokerRegistrationSeconds", int64(c.ReadyAfterBrokerRegistrationSeconds))
	r.metricsType(c.MetricsExporterType)
	r.host("metricsPromExporterHost", c.MetricsPromExporterHost)
	if !c.PromMetricsEnabled() {
		r.port("metricsPromExporterPort", c.MetricsPromExporterPort, 0)
		return
	}
	r.port("metricsPromExporterPort", c.MetricsPromExporterPort, 1)
	if collides(c.MetricsAddr(), c.ListenAddr()) {
		r.addf("metricsPromExporterPort (%s) collides with the NameServer listen address %s",
			c.MetricsAddr(), c.ListenAddr())
	}
}

// collides reports whether two listen addresses would fight for one socket:
// same port, and the same host or a wildcard host on either side.
func collides(a, b string) bool {
	ha, pa, err1 := net.SplitHostPort(a)
	hb, pb, err2 := net.SplitHostPort(b)
	if err1 != nil || err2 != nil || !samePort(pa, pb) {
		return false
	}
	ha, hb = normHost(ha), normHost(hb)
	return ha == hb || isWildcard(ha) || isWildcard(hb)
}

func samePort(a, b string) bool {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	return err1 == nil && err2 == nil && x == y && x != 0
}

func normHost(h string) string {
	if strings.EqualFold(h, "localhost") {
		return "127.0.0.1"
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return strings.ToLower(h)
}

func isWildcard(h string) bool {
	if h == "" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsUnspecified()
}
