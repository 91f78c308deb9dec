//go:build embedded_controller

package raftstore

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// The tests of this package cannot import raftstoretest (it imports
// raftstore): these are its two functions (TestLogger as testLogger), for them.

// testLogger returns a debug-level hclog.Logger that writes to t.Log.
func testLogger(t testing.TB, name string) hclog.Logger { return testlog.New(t, name) }

// NewInmemCluster is raftstoretest.NewInmemCluster.
func NewInmemCluster(t testing.TB, n int, newFSM func(id string) raft.FSM, opts ...func(*Config)) *TestCluster {
	t.Helper()
	return StartInmemCluster(t, testLogger(t, "cluster"), n, newFSM, opts...)
}
