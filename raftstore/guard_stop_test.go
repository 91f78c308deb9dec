//go:build embedded_controller

package raftstore

import (
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// A guard that stopped while an RPC waited for raft must still answer it
// with a response of the right type: hashicorp/raft's in-memory pipeline
// dereferences the response of an AppendEntries without looking at the
// error, and panicked on the nil response ("interface {} is nil, not
// *raft.AppendEntriesResponse", seen in make test).
func TestStoppedGuardAnswersWithTypedResponses(t *testing.T) {
	_, trans := raft.NewInmemTransport("")
	g, err := newVoteGuard(trans, raft.NewInmemStore(), "n1", testLogger(t, "guard"))
	require.NoError(t, err)
	require.NoError(t, g.Close())
	for _, cmd := range []any{&raft.AppendEntriesRequest{}, &raft.RequestVoteRequest{}, &raft.RequestPreVoteRequest{},
		&raft.InstallSnapshotRequest{}, &raft.TimeoutNowRequest{}} {
		respCh := make(chan raft.RPCResponse, 1)
		g.relay(raft.RPC{Command: cmd, RespChan: respCh})
		resp := <-respCh
		require.Error(t, resp.Error)
		require.NotNil(t, resp.Response, "%T", cmd)
	}
}
