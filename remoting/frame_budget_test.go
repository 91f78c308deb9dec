package remoting

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// extHeavyFrame is a frame of code whose ROCKETMQ header is ~16 MiB of
// distinct one-byte-valued extFields (9 bytes each on the wire).
func extHeavyFrame(code int32) []byte {
	hdr := binary.BigEndian.AppendUint16(nil, uint16(code))
	hdr = append(hdr, 0)
	hdr = binary.BigEndian.AppendUint16(hdr, 0)
	hdr = binary.BigEndian.AppendUint32(hdr, 1) // opaque
	hdr = binary.BigEndian.AppendUint32(hdr, 0) // flag: request
	hdr = binary.BigEndian.AppendUint32(hdr, 0) // no remark
	extAt := len(hdr)
	hdr = append(hdr, 0, 0, 0, 0)
	for i := 0; len(hdr) < maxHeaderLength-16; i++ {
		hdr = binary.BigEndian.AppendUint16(hdr, 3)
		hdr = append(hdr, byte(i>>16), byte(i>>8), byte(i))
		hdr = binary.BigEndian.AppendUint32(hdr, 1)
		hdr = append(hdr, 'v')
	}
	binary.BigEndian.PutUint32(hdr[extAt:], uint32(len(hdr)-extAt-4))
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(hdr)))
	frame = binary.BigEndian.AppendUint32(frame, uint32(SerializeRocketMQ)<<24|uint32(len(hdr)))
	return append(frame, hdr...)
}

// TestAttackDecodedHeadersBeyondFrameBudget: the partial-frame budget
// charges a large frame its wire length only while its bytes arrive, and
// gives it back before the frame is decoded. A ~16 MiB header of small
// extFields decodes into a map of ~4x that size, uncharged; and while the
// handler runs (a slow handler: the registration lane, the controller's
// scheduler) every connection holds its decoded command. Three connections
// against a 16 MiB budget: live heap grows ~200 MiB.
func TestAttackDecodedHeadersBeyondFrameBudget(t *testing.T) {
	const code, conns, budget = 7777, 3, 16 * mib
	s, addr := newTestServer(t, ServerConfig{PartialFrameBudget: budget})
	release := make(chan struct{})
	defer close(release)
	var entered atomic.Int64
	s.Register(code, func(_ *Conn, req *Command) (*Command, error) {
		entered.Add(1)
		<-release // a slow handler
		return NewResponse(req, Success, ""), nil
	})
	frame := extHeavyFrame(code)
	base := heapInUse()
	var closed atomic.Int64 // connections the server cut (header too long)
	for range conns {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = nc.Close() })
		go func() { _, _ = nc.Write(frame) }()
		go func() { _, _ = io.Copy(io.Discard, nc); closed.Add(1) }()
	}
	deadline := time.Now().Add(60 * time.Second)
	for entered.Load()+closed.Load() < conns && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	growth := heapInUse() - base
	t.Logf("%d handlers holding decoded %d MiB headers, %d connections closed: heap growth %d MiB (budget %d MiB)",
		entered.Load(), len(frame)/mib, closed.Load(), growth/mib, budget/mib)
	require.LessOrEqual(t, growth, int64(budget+16*mib), "decoded commands are held outside the frame budget")
}

// holdBudget keeps one connection in the middle of a frame of length
// bytes (declared, never sent), reconnecting whenever the server cuts it,
// until stop.
func holdBudget(addr string, length uint32, stop *atomic.Bool) {
	for !stop.Load() {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		_, _ = nc.Write(binary.BigEndian.AppendUint32(nil, length))
		for !stop.Load() {
			_ = nc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			var b [1]byte
			if _, err := nc.Read(b[:]); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				break // cut by the server: take the budget again
			}
		}
		_ = nc.Close()
	}
}

// TestAttackFrameBudgetStarvation: the partial-frame budget is shared by
// all connections, taken by a frame's declared length as soon as its
// length field arrives, and handed to whichever waiter fits first. Forty
// connections that each declare a frame just over 64 KiB and send nothing
// more, reconnecting when the idle timeout cuts them, keep it taken: each
// freed slice is re-taken by another small waiter, so a larger frame (a
// broker registration of a few hundred topics) never fits, waits for the
// idle timeout and its connection is closed. 1 MiB budget; the victim
// sends one 200 KiB request. With the default 256 MiB budget the same
// needs ~4,000 connections of 4 bytes each.
func TestAttackFrameBudgetStarvation(t *testing.T) {
	const budget, holders, idle, victim = 1 * mib, 40, 2 * time.Second, 200 << 10
	s, addr := newTestServer(t, ServerConfig{IdleTimeout: idle, PartialFrameBudget: budget})
	s.Register(1, echo)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := range holders {
		wg.Add(1)
		go func() { // staggered over the idle timeout, so releases come one at a time
			defer wg.Done()
			time.Sleep(time.Duration(i) * idle / holders)
			holdBudget(addr, readChunk+1, &stop)
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	for end := time.Now().Add(3 * idle); time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond) // until every holder has started
	}
	c := dial(t, addr, ClientOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Invoke(ctx, NewRequest(1, nil, make([]byte, victim)))
	t.Logf("a 200 KiB request while %d connections hold the frame budget: err=%v after %s", holders, err, time.Since(start))
	require.NoError(t, err, "a few idle connections starve every large frame of the server")
}

// TestShutdownReturnsAtItsDeadline: Shutdown(ctx) says that when ctx
// ends first the connections are closed at once and ctx.Err() returned,
// but it then waits for every connection goroutine, and a connection waits
// for its running async handlers (Conn.run: asyncWG.Wait), which closing
// the socket does not stop. A handler blocked on a Raft commit (the
// controller's leader-gated codes wait up to their 5 s deadline; the
// scheduler's entry without one) holds the whole shutdown past its
// deadline, and the process past its shutdownWaitTimeSeconds. Here a
// handler that blocks 3 s against a 200 ms shutdown deadline.
func TestShutdownReturnsAtItsDeadline(t *testing.T) {
	const code = 7778
	s := NewServer(ServerConfig{Logger: testLogger(t)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	var entered atomic.Bool
	release, exited := make(chan struct{}), make(chan struct{})
	defer func() { close(release); <-exited }() // no goroutine outlives the test
	s.RegisterAsync(code, func(_ *Conn, req *Command) (*Command, error) {
		defer close(exited)
		entered.Store(true)
		select { // a commit that takes its time
		case <-time.After(3 * time.Second):
		case <-release:
		}
		return NewResponse(req, Success, ""), nil
	})
	c := dial(t, ln.Addr().String(), ClientOptions{})
	require.NoError(t, c.InvokeOneway(NewRequest(code, nil, nil)))
	poll.Until(t, "async handler running", 5*time.Second, 2*time.Millisecond, poll.True(entered.Load))

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.Shutdown(ctx)
	took := time.Since(start)
	t.Logf("Shutdown with a 200 ms deadline returned %v after %s", err, took)
	require.NoError(t, <-served)
	require.Less(t, took, time.Second, "Shutdown overran its deadline waiting for a handler")
}

// TestAttackSmallFrameSlowloris: only frames longer than 64 KiB reserve
// the frame budget; a frame of exactly 64 KiB gets its whole buffer
// allocated when its length field arrives (readFrameBody) and keeps it
// until the idle timeout (120 s by default) cuts the connection, and
// nothing bounds the number of connections. 2,000 connections that each
// send the 4-byte length of a 64 KiB frame hold ~160 MiB against a 16 MiB
// budget; with the default ulimit of real deployments (65,536+ fds) it is
// gigabytes: 984 MB needs ~12,000.
func TestAttackSmallFrameSlowloris(t *testing.T) {
	const conns, budget = 2000, 16 * mib
	_, addr := newTestServer(t, ServerConfig{PartialFrameBudget: budget})
	base := heapInUse()
	hdr := binary.BigEndian.AppendUint32(nil, readChunk) // a frame of exactly 64 KiB
	for range conns {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = nc.Close() })
		_, err = nc.Write(hdr)
		require.NoError(t, err)
	}
	var growth int64
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && growth <= budget+32*mib; {
		growth = heapInUse() - base
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d connections each holding the length field of a 64 KiB frame: heap growth %d MiB (budget %d MiB)",
		conns, growth/mib, budget/mib)
	require.LessOrEqual(t, growth, int64(budget+32*mib), "half-sent frames of 64 KiB are not bounded")
}

// TestServerChargesDecodedHeaders: a header over 64 KiB is charged four
// times its wire size on top of the frame while its request is handled,
// for the map it decodes into, and the charge is given back afterwards.
func TestServerChargesDecodedHeaders(t *testing.T) {
	const code, budget = 7779, 64 * mib
	s, addr := newTestServer(t, ServerConfig{PartialFrameBudget: budget})
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock() // also when an assertion fails: the handler must end
	var entered atomic.Bool
	s.Register(code, func(_ *Conn, req *Command) (*Command, error) {
		entered.Store(true)
		<-release
		return NewResponse(req, Success, ""), nil
	})
	ext := map[string]string{}
	for i := range 100_000 {
		ext[string(binary.BigEndian.AppendUint32(nil, uint32(i)))] = "v"
	}
	req := NewRequest(code, ext, nil)
	req.SerializeType = SerializeRocketMQ
	frame := frameOf(t, req)
	headerLen := int64(binary.BigEndian.Uint32(frame[4:]) & maxHeaderLength)
	rc := dialRaw(t, addr)
	rc.send(frame)
	poll.Until(t, "handler running", 5*time.Second, 2*time.Millisecond, poll.True(entered.Load))
	held := budget - s.budget.available()
	t.Logf("a %d KiB header held %d KiB of the budget while handled", headerLen>>10, held>>10)
	require.GreaterOrEqual(t, held, int64(len(frame)-4)+decodedHeaderFactor*headerLen)
	unblock()
	resp, err := rc.read()
	require.NoError(t, err)
	require.Equal(t, Success, resp.Code)
	poll.Until(t, "the budget is whole again", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return s.budget.available() == budget }))
}
