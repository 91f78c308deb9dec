//go:build embedded_controller

package main

import (
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
)

// TestSIGTERMRightAfterStartIsGraceful: a SIGTERM that arrives once the
// controller is up but before serve waits for signals goes through the
// graceful stop and exit 0, not Go's default action (the process ends at
// once).
func TestSIGTERMRightAfterStartIsGraceful(t *testing.T) {
	require.Equal(t, 0, serveUntil(t, func() {
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
		time.Sleep(200 * time.Millisecond) // the signal is delivered before serve goes on (not an assertion)
	}))
}

// TestSIGHUPIsGraceful: SIGHUP stops the controller gracefully (exit 0),
// not with Go's default immediate exit 129.
func TestSIGHUPIsGraceful(t *testing.T) {
	require.Equal(t, 0, serveUntil(t, func() { require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP)) }))
}

// serveUntil runs a one-node controller on loopback with after as the
// afterStart hook and returns serve's exit status.
func serveUntil(t *testing.T, after func()) int {
	logger := raftstoretest.TestLogger(t, "ctl")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	tr, err := raftstore.NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	cfg := loadTestConfig(t, ln.Addr().String(), string(tr.LocalAddr()))
	afterStart = after
	t.Cleanup(func() { afterStart = func() {} })
	return serve(cfg, logger, nodeOptions{
		controller: []controller.Option{controller.WithListener(ln), controller.WithRaftTransport(tr)},
	})
}
