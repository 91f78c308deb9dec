package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/rmqgo/nameserver/config"
)

// healthTimeout bounds one -healthcheck request (Docker's HEALTHCHECK
// default timeout is 30 s; the answer comes at once or not at all).
const healthTimeout = 3 * time.Second

// healthClient asks the NameServer directly: a container's HTTP_PROXY
// must not carry a check of its own NameServer (http.DefaultClient would
// send it there for any host but loopback).
var healthClient = &http.Client{Transport: &http.Transport{Proxy: nil}}

// healthcheck is -healthcheck: GET /healthz of the metrics listener the
// configuration (-c file and NAMESRV_ variables) names, on loopback when
// it listens on every address; 0 on 200, 1 otherwise. A static image has
// no curl: its HEALTHCHECK runs this.
func healthcheck(cfg *config.NamesrvConfig, stderr io.Writer) int {
	if !cfg.PromMetricsEnabled() {
		fmt.Fprintln(stderr, "healthcheck: needs metricsExporterType=PROM (NAMESRV_METRICSEXPORTERTYPE=PROM)")
		return 1
	}
	url := "http://" + localAddr(cfg.MetricsAddr()) + "/healthz"
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 1
	}
	resp, err := healthClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "healthcheck: %s answered %s\n", url, resp.Status)
		return 1
	}
	return 0
}

// localAddr replaces a wildcard host by loopback.
func localAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port)
}
