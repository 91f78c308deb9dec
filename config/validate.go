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

// metricsType accepts the exporters this server implements. Java's
// OTLP_GRPC and LOG are refused rather than silently exporting nothing.
func (r *rules) metricsType(v string) {
	switch v {
	case "", "DISABLE", "PROM":
	case "OTLP_GRPC", "LOG":
		r.addf("metricsExporterType (%s) is a Java exporter this server does not implement: "+
			"use PROM (Prometheus /metrics) or DISABLE", v)
	default:
		r.addf("metricsExporterType (%s) must be one of DISABLE, PROM", v)
	}
}

// Validate reports every broken rule at once (errors.Join; each error wraps
// ErrInvalid and names its key): parse errors of the -c file, every numeric
// key within its bounds (numericBounds), non-empty paths, the Prometheus
// port set and apart from the listen address, and the
// embedded controller (see validateController: in a build without
// -tags embedded_controller, enableControllerInNamesrv=true is an error).
func (c *NamesrvConfig) Validate() error {
	r := &rules{errs: slices.Clone(c.loadErrs)}
	c.namesrvRules(r)
	boundRules(r, bindings(c))
	c.NettyServer.rules(r)
	c.extraRules(r)
	c.ACL.rules(r)
	c.addrServiceRules(r)
	c.Warmup.rules(r)
	r.errs = append(r.errs, validateController(c)...)
	return joinUnique(r.errs)
}

func (c *NamesrvConfig) namesrvRules(r *rules) {
	r.nonEmpty("kvConfigPath", c.KVConfigPath)
	r.nonEmpty("configStorePath", c.ConfigStorePath)
}

func (n *NettyServer) rules(r *rules) {
	r.host("bindAddress", n.BindAddress)
	n.ProxyProtocol.rules(r)
	if n.WriteBufferHighWaterMark > 0 && n.WriteBufferLowWaterMark > n.WriteBufferHighWaterMark {
		r.addf("writeBufferLowWaterMark (%d) must not exceed writeBufferHighWaterMark (%d)",
			n.WriteBufferLowWaterMark, n.WriteBufferHighWaterMark)
	}
}

func (c *NamesrvConfig) extraRules(r *rules) {
	r.metricsType(c.MetricsExporterType)
	r.host("metricsPromExporterHost", c.MetricsPromExporterHost)
	if !c.PromMetricsEnabled() {
		return
	}
	if c.MetricsPromExporterPort == 0 {
		r.addf("metricsPromExporterPort (0) must be set when metricsExporterType is PROM")
	}
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
