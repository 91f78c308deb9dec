//go:build embedded_controller

package controllertest

import (
	"context"
	encbin "encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	"github.com/rmqgo/nameserver/remoting"
)

// clusterVersionEntry is the type byte of the cluster version entry
// (controller/entry_format.go), format 2.
const clusterVersionEntry = 66

// entryTypes counts the cluster version entries in each stopped node's
// Raft log (raft.db under controllerStorePath, opened read-only).
func (uc *upCluster) entryTypes(t *testing.T) map[string]int {
	out := map[string]int{}
	for _, nd := range uc.nodes {
		store, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(nd.dir, "store", "raft.db"),
			BoltOptions: &bbolt.Options{ReadOnly: true, Timeout: 5 * time.Second}})
		require.NoError(t, err, nd.id)
		first, err := store.FirstIndex()
		require.NoError(t, err)
		last, err := store.LastIndex()
		require.NoError(t, err)
		n := 0
		for i := first; i <= last && i > 0; i++ {
			var l raft.Log
			require.NoError(t, store.GetLog(i, &l), "%s index %d", nd.id, i)
			if l.Type == raft.LogCommand && len(l.Data) > 0 && l.Data[0] == clusterVersionEntry {
				n++
			}
		}
		require.NoError(t, store.Close())
		out[nd.id] = n
	}
	return out
}

// snapshotVersions lists the format of every snapshot the nodes kept
// (the uvarint after the 4-byte magic; 1 for JSON).
func (uc *upCluster) snapshotVersions(t *testing.T) map[string][]uint64 {
	out := map[string][]uint64{}
	for _, nd := range uc.nodes {
		files, err := filepath.Glob(filepath.Join(nd.dir, "store", "snapshots", "*", "state.bin"))
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			v := uint64(1)
			if len(b) > 4 && b[0] == 0x89 {
				v, _ = encbin.Uvarint(b[4:])
			}
			out[nd.id] = append(out[nd.id], v)
		}
	}
	return out
}

// kvCall sends one KV request (PUT_KV_CONFIG 100, GET_KV_CONFIG 101) to a
// NameServer and returns the reply.
func kvCall(t *testing.T, ns string, code int32, ext map[string]string) *remoting.Command {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := remoting.Dial(ctx, ns, remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(code, ext, nil))
	require.NoError(t, err)
	return resp
}

// putKVs stores a KV entry on each node (bbolt at kvConfigPath).
func (uc *upCluster) putKVs(t *testing.T) {
	for _, nd := range uc.nodes {
		resp := kvCall(t, nd.ns, remoting.PutKVConfig, map[string]string{"namespace": "UPGRADE", "key": nd.id, "value": "written by the old binary"})
		require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	}
}

// requireKVs: each node's KV entry is read back from its data directory.
func (uc *upCluster) requireKVs(t *testing.T) {
	for _, nd := range uc.nodes {
		resp := kvCall(t, nd.ns, remoting.GetKVConfig, map[string]string{"namespace": "UPGRADE", "key": nd.id})
		require.Equal(t, remoting.Success, resp.Code, "%s (new binary: %t): %s", nd.id, nd.newBin, resp.Remark)
		require.Equal(t, "written by the old binary", resp.ExtFields["value"], nd.id)
	}
}

// dropVersionFields checks and removes the version fields 1005 replies
// carry from v1.1.0 on (docs/controller.md §2.8), which Java's golden
// replies do not have and Java's decoder ignores.
func dropVersionFields(t *testing.T, ext map[string]string) {
	t.Helper()
	require.NotEmpty(t, ext["binaryVersion"])
	require.Equal(t, "2", ext["controllerFormatVersion"])
	require.Contains(t, []string{"1", "2"}, ext["controllerClusterVersion"])
	for _, k := range []string{"binaryVersion", "controllerFormatVersion", "controllerClusterVersion"} {
		delete(ext, k)
	}
}
