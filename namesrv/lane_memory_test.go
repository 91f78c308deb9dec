package namesrv

import (
	"bytes"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// heapAlloc is the live heap after a collection.
func heapAlloc() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestAttackLaneHoldsFramesBeyondBudget: the partial-frame budget is released when a frame's last byte arrives, but a
// REGISTER_BROKER frame then waits on the registration lane, which runs one
// registration at a time, and its buffer stays live until its turn. While
// one slow registration holds the lane (here: a blocked lane function; in
// production a registration of many topics), every connection that sends a
// complete registration frame holds it in memory: conns x frame size, with
// no bound from the budget or the pending-response cap. 24 connections x
// 2 MiB against an 8 MiB budget.
func TestAttackLaneHoldsFramesBeyondBudget(t *testing.T) {
	const budget, frameBody, conns = 8 << 20, 2 << 20, 24
	srv := startServer(t, func(c *config.NamesrvConfig) { c.ServerPartialFrameBudgetBytes = budget })
	release := make(chan struct{})
	defer close(release)
	go func() { srv.lane.work <- func() { <-release } }() // a slow registration holds the lane
	base := heapAlloc()
	req := remoting.NewRequest(remoting.RegisterBroker, map[string]string{"brokerName": "b"},
		bytes.Repeat([]byte{'x'}, frameBody))
	frame := remoting.EncodeFrame(nil, req)
	for range conns {
		nc, err := net.Dial("tcp", srv.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { _ = nc.Close() })
		_, err = nc.Write(frame)
		require.NoError(t, err)
	}
	limit := int64(budget + 16<<20) // the budget plus generous slack for buffers
	var grown int64
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && grown <= limit {
		grown = heapAlloc() - base
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("heap grew by %d MiB with %d complete %d MiB frames queued on the lane (budget %d MiB)",
		grown>>20, conns, frameBody>>20, budget>>20)
	require.LessOrEqual(t, grown, limit, "complete frames waiting for the lane are held beyond the frame budget")
}

// TestAttackExtFieldResponsesEscapeTheCap: the pending-response cap counts
// a response as 128 bytes + remark + body + 48 per ext field, whatever the
// field holds. GET_KV_CONFIG answers the value in the "value" ext field, so
// after one PUT_KV_CONFIG of a 4 MiB value (any client may) a connection
// that pipelines GET_KV_CONFIG and never reads passes the 4 MiB cap at
// ~180 bytes a response: the writer encodes batches of up to 64 such
// responses (256 MiB) into one buffer and holds it while the write blocks.
// One connection, 200 requests.
func TestAttackExtFieldResponsesEscapeTheCap(t *testing.T) {
	const valueSize, requests, limit = 4 << 20, 200, 64 << 20
	srv := startServer(t, nil)
	put := remoting.NewRequest(remoting.PutKVConfig, map[string]string{"namespace": "ns", "key": "k",
		"value": string(bytes.Repeat([]byte{'v'}, valueSize))}, nil)
	require.Equal(t, remoting.Success, invoke(t, dial(t, srv), put).Code)

	nc, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	var frames []byte
	for i := range requests {
		req := remoting.NewRequest(remoting.GetKVConfig, map[string]string{"namespace": "ns", "key": "k"}, nil)
		req.Opaque = int32(i + 1)
		frames = remoting.EncodeFrame(frames, req)
	}
	base := heapAlloc()
	go func() { _, _ = nc.Write(frames) }() // never reads
	var grown int64
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && grown <= limit; {
		grown = heapAlloc() - base
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("one non-reading connection, %d GET_KV_CONFIG of a %d MiB value: heap grew %d MiB (cap %d MiB)",
		requests, valueSize>>20, grown>>20, config.Default().ServerChannelMaxPendingResponseBytes>>20)
	require.LessOrEqual(t, grown, int64(limit), "responses held beyond the pending-response cap")
}
