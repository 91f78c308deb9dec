//go:build embedded_controller

package raftstore

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// TestDiskLogStoreIsCached: the bbolt log store is fronted by
// raft.LogCache, so that the leader's replication reads the entries it
// just wrote from memory; a stored entry reads back the same.
func TestDiskLogStoreIsCached(t *testing.T) {
	p := &parts{}
	require.NoError(t, p.useDisk(t.TempDir(), hclog.NewNullLogger()))
	t.Cleanup(func() { require.NoError(t, p.close()) })
	_, cached := p.logs.(*raft.LogCache)
	require.True(t, cached, "log store %T", p.logs)
	require.NoError(t, p.logs.StoreLogs([]*raft.Log{{Index: 1, Term: 1, Type: raft.LogCommand, Data: []byte("x")}}))
	var l raft.Log
	require.NoError(t, p.logs.GetLog(1, &l))
	require.Equal(t, []byte("x"), l.Data)
}
