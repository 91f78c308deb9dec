package remoting

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// blocker is an async handler that waits for release and counts how many
// of its requests run at once.
type blocker struct {
	release chan struct{}
	running atomic.Int64
	mu      sync.Mutex
	peak    int64
}

func (b *blocker) handle(_ *Conn, req *Command) (*Command, error) {
	n := b.running.Add(1)
	b.mu.Lock()
	b.peak = max(b.peak, n)
	b.mu.Unlock()
	<-b.release
	b.running.Add(-1)
	return NewResponse(req, Success, "async"), nil
}

// pipelineRaw writes the requests codes[i] with opaque i+1 in one write.
func pipelineRaw(rc *rawConn, codes ...int32) {
	var buf []byte
	for i, code := range codes {
		req := NewRequest(code, nil, nil)
		req.Opaque = int32(i + 1)
		buf = EncodeFrame(buf, req)
	}
	rc.send(buf)
}

func TestServerAsyncAnswersLaterRequestsFirst(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	b := &blocker{release: make(chan struct{})}
	s.RegisterAsync(5, b.handle)
	s.Register(1, echo)
	rc := dialRaw(t, addr)
	pipelineRaw(rc, 5, 1)
	resp, err := rc.read()
	require.NoError(t, err)
	require.Equal(t, int32(2), resp.Opaque, "the inline request is not held behind the blocked one")
	close(b.release)
	resp, err = rc.read()
	require.NoError(t, err)
	require.Equal(t, int32(1), resp.Opaque)
	require.Equal(t, "async", resp.Remark)
	require.True(t, resp.IsResponse())
}

func TestServerAsyncBoundsInFlightPerConnection(t *testing.T) {
	const limit = 2
	s, addr := newTestServer(t, ServerConfig{MaxAsyncPerConn: limit})
	b := &blocker{release: make(chan struct{})}
	s.RegisterAsync(5, b.handle)
	s.Register(1, echo)
	rc := dialRaw(t, addr)
	pipelineRaw(rc, 5, 5, 5, 5, 5, 1)
	poll.Until(t, "the first requests run", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return b.running.Load() == limit }))
	close(b.release)
	seen := map[int32]bool{}
	for range 6 {
		resp, err := rc.read()
		require.NoError(t, err)
		seen[resp.Opaque] = true
	}
	require.Len(t, seen, 6, "every request answered once")
	require.Equal(t, int64(limit), b.peak, "never more than MaxAsyncPerConn at once")
}

func TestServerShutdownWaitsForAsyncResponses(t *testing.T) {
	s := NewServer(ServerConfig{Logger: testLogger(t)})
	addr := startServer(t, s)
	b := &blocker{release: make(chan struct{})}
	s.RegisterAsync(5, b.handle)
	rc := dialRaw(t, addr)
	pipelineRaw(rc, 5)
	poll.Until(t, "the request runs", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return b.running.Load() == 1 }))
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	close(b.release)
	resp, err := rc.read()
	if err == nil {
		require.Equal(t, int32(1), resp.Opaque)
	}
	require.NoError(t, <-done)
}
