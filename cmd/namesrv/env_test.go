package main

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
)

func runMain(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// NAMESRV_<KEY> variables set properties over the -c file; -p shows them.
func TestEnvironmentSetsProperties(t *testing.T) {
	t.Setenv("NAMESRV_LISTENPORT", "9877")
	t.Setenv("NAMESRV_ORDER_MESSAGE_ENABLE", "true")
	t.Setenv("NAMESRV_LOG_LEVEL", "debug")
	code, out, errOut := runMain("-p")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "listenPort=9877\n")
	require.Contains(t, out, "orderMessageEnable=true\n")

	t.Setenv("NAMESRV_LISTEN_PROT", "1")
	code, _, errOut = runMain("-p")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "NAMESRV_LISTEN_PROT names no key")
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) *net.TCPAddr {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().(*net.TCPAddr)
	require.NoError(t, ln.Close())
	return addr
}

// -healthcheck asks /healthz of the configured metrics port, on loopback
// for a wildcard bind address: 0 while the NameServer runs, 1 after.
func TestHealthcheck(t *testing.T) {
	metricsAddr := freeAddr(t)
	srv := namesrvtest.Start(t, namesrvtest.WithConfig(func(c *config.NamesrvConfig) {
		c.MetricsExporterType, c.MetricsPromExporterPort = "PROM", metricsAddr.Port
	}))

	code, _, errOut := runMain("-healthcheck")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "needs metricsExporterType=PROM")

	t.Setenv("NAMESRV_METRICSEXPORTERTYPE", "PROM")
	t.Setenv("NAMESRV_BINDADDRESS", "0.0.0.0")
	t.Setenv("NAMESRV_METRICSPROMEXPORTERPORT", strconv.Itoa(metricsAddr.Port))
	code, _, errOut = runMain("-healthcheck")
	require.Equal(t, 0, code, errOut)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx))
	code, _, errOut = runMain("-healthcheck")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "healthcheck:")
}

func TestLocalAddr(t *testing.T) {
	require.Equal(t, "127.0.0.1:5557", localAddr("0.0.0.0:5557"))
	require.Equal(t, "127.0.0.1:5557", localAddr(":5557"))
	require.Equal(t, "[::1]:5557", localAddr("[::]:5557"))
	require.Equal(t, "10.0.0.1:5557", localAddr("10.0.0.1:5557"))
}

// startNamesrv creates and starts a NameServer.
func startNamesrv(cfg *config.NamesrvConfig, logger hclog.Logger, opts ...namesrv.Option) (*namesrv.Server, error) {
	srv, err := namesrv.New(cfg, logger, opts...)
	if err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		_ = srv.Shutdown(context.Background())
		return nil, err
	}
	return srv, nil
}
