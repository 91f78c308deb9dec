//go:build embedded_controller

package raftstoretest

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/raftstore"
)

// TestLogger returns a debug-level hclog.Logger that writes to t.Log
// (testlog.New).
func TestLogger(t testing.TB, name string) hclog.Logger { return testlog.New(t, name) }

// NewInmemCluster starts n connected in-memory nodes, each with
// newFSM(id), logging to t.Log, and waits for a leader
// (raftstore.StartInmemCluster); t.Cleanup closes them.
func NewInmemCluster(t testing.TB, n int, newFSM func(id string) raft.FSM, opts ...func(*raftstore.Config)) *raftstore.TestCluster {
	t.Helper()
	return raftstore.StartInmemCluster(t, TestLogger(t, "cluster"), n, newFSM, opts...)
}
