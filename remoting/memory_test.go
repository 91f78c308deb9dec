package remoting

import (
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

const (
	topicListCode = 206 // GET_ALL_TOPIC_LIST_FROM_NAMESERVER
	mib           = 1 << 20
)

// heapInUse returns the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// maxHeapUntil samples the live heap every 50 ms until done returns true or
// window passes, and returns the largest sample.
func maxHeapUntil(done func() bool, window time.Duration) int64 {
	var peak int64
	for end := time.Now().Add(window); ; {
		peak = max(peak, heapInUse())
		if done() || time.Now().After(end) {
			return peak
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pipeline writes n requests of code on nc without ever reading.
func pipeline(t *testing.T, nc net.Conn, code int32, n int) {
	var buf []byte
	for i := range n {
		req := NewRequest(code, nil, nil)
		req.Opaque = int32(i + 1)
		buf = EncodeFrame(buf, req)
	}
	go func() { _, _ = nc.Write(buf) }() // blocks once the server stops reading
}

// TestServerBoundsResponsesOfNonReadingClients: clients that
// pipeline requests with large responses and never read must not make the
// server queue those responses without bound; other clients are still
// served, and the stuck connections are closed after the idle timeout.
func TestServerBoundsResponsesOfNonReadingClients(t *testing.T) {
	const (
		conns, perConn = 10, 200
		bodySize       = 64 << 10
		limit          = 1 * mib
	)
	s, addr := newTestServer(t, ServerConfig{IdleTimeout: 3 * time.Second, MaxPendingResponseBytes: limit})
	var handled atomic.Int64
	s.Register(topicListCode, func(_ *Conn, req *Command) (*Command, error) {
		handled.Add(1)
		resp := NewResponse(req, Success, "")
		resp.Body = make([]byte, bodySize) // a fresh body, like a real topic list
		return resp, nil
	})
	s.Register(1, echo)
	var closed atomic.Int64
	s.OnConnClose(func(*Conn) { closed.Add(1) })
	base := heapInUse()
	for range conns {
		pipeline(t, dialRaw(t, addr).nc, topicListCode, perConn)
	}
	peak := maxHeapUntil(func() bool { return handled.Load() == conns*perConn }, time.Second)
	growth := peak - base
	t.Logf("handled=%d of %d, heap growth %.1f MiB (cap %d MiB x %d conns)",
		handled.Load(), conns*perConn, float64(growth)/mib, limit/mib, conns)
	require.Less(t, growth, int64(conns*(2*limit+4*bodySize)+8*mib), "heap growth over the per-connection cap")

	other := dial(t, addr, ClientOptions{})
	require.Equal(t, Success, invoke(t, other, NewRequest(1, nil, nil)).Code, "another client is served")
	// Each stuck connection is closed about one idle timeout after its
	// last write; a loaded -race run (make test runs packages side by side)
	// took over 5 s, so this waits up to four idle timeouts.
	poll.Until(t, "stuck connections closed after the idle timeout", 12*time.Second, 5*time.Millisecond, poll.True(func() bool { return closed.Load() == conns }))
}

// TestServerBoundsPartialLargeFrames: many
// connections each sending the first MiB of a large frame must not make the
// server hold the frames' announced lengths (or a multiple of what arrived).
func TestServerBoundsPartialLargeFrames(t *testing.T) {
	const (
		conns    = 40
		announce = 8 * mib
		sent     = 1 * mib
		budget   = 16 * mib
	)
	s, addr := newTestServer(t, ServerConfig{IdleTimeout: 5 * time.Second, PartialFrameBudget: budget})
	s.Register(1, echo)
	payload := make([]byte, 4+sent)
	binary.BigEndian.PutUint32(payload, announce-4)
	base := heapInUse()
	var wg sync.WaitGroup
	var written atomic.Int64
	ncs := make([]net.Conn, conns)
	for i := range ncs {
		nc := dialRaw(t, addr).nc
		ncs[i] = nc
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := nc.Write(payload); err == nil {
				written.Add(1)
			}
		}()
	}
	peak := maxHeapUntil(func() bool { return written.Load() == conns }, time.Second)
	t.Logf("writes done %d of %d, heap growth %.1f MiB (budget %d MiB)",
		written.Load(), conns, float64(peak-base)/mib, budget/mib)
	require.Less(t, peak-base, int64(budget+conns*128<<10+8*mib), "heap growth over the partial-frame budget")

	other := dial(t, addr, ClientOptions{})
	require.Equal(t, Success, invoke(t, other, NewRequest(1, nil, nil)).Code, "another client is served")
	for _, nc := range ncs {
		_ = nc.Close()
	}
	wg.Wait()
}

// TestServerFrameBudgetWaitsThenServes: a large frame that finds the
// budget spent waits for it and is served once the holder's frame is
// complete.
func TestServerFrameBudgetWaitsThenServes(t *testing.T) {
	const size = 200 << 10
	s, addr := newTestServer(t, ServerConfig{PartialFrameBudget: 256 << 10})
	s.Register(1, echo)
	big := func() []byte { return frameOf(t, NewRequest(1, nil, make([]byte, size))) }
	holder, waiter := dialRaw(t, addr), dialRaw(t, addr)
	first := big()
	holder.send(first[:100<<10])
	poll.Until(t, "the holder reserved its frame", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return s.budget.available() < size }))
	waiter.send(big())
	holder.send(first[100<<10:])
	for _, rc := range []*rawConn{holder, waiter} {
		resp, err := rc.read()
		require.NoError(t, err)
		require.Equal(t, Success, resp.Code)
		require.Len(t, resp.Body, size)
	}
	poll.Until(t, "the budget is whole again", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return s.budget.available() == 256<<10 }))
}

// TestServerClosesConnectionsOverTheLimit: with MaxConnections open, a new
// connection is closed at once; the open ones are served, and once one
// closes a new one is accepted again.
func TestServerClosesConnectionsOverTheLimit(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{MaxConnections: 2})
	s.Register(1, echo)
	first, second := dial(t, addr, ClientOptions{}), dial(t, addr, ClientOptions{})
	for _, c := range []*Client{first, second} {
		require.Equal(t, Success, invoke(t, c, NewRequest(1, nil, nil)).Code)
	}
	over := dialRaw(t, addr)
	_ = over.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := over.nc.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "a connection over the limit is closed at once")

	require.NoError(t, first.Close())
	poll.Until(t, "first closed", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.conns) == 1 }))
	third := dial(t, addr, ClientOptions{})
	require.Equal(t, Success, invoke(t, third, NewRequest(1, nil, nil)).Code)
}
