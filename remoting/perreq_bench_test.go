package remoting

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// lookupFrame is a route lookup as rocketmq-client-go sends it (length
// field included), opaque 12345.
var lookupFrame = func() []byte {
	h := `{"code":105,"language":"GO","version":317,"opaque":12345,"flag":0,"remark":"","extFields":{"topic":"TopicTest"}}`
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(h)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(h)))
	return append(b, h...)
}()

// BenchmarkConnPerRequest is the CPU a server connection spends per route
// lookup outside the kernel: one connection whose every Read returns one
// lookup frame (as a closed-loop client's request arrives) and whose
// Writes are counted, so no syscall and no other goroutine is measured.
// "server" is the Server as the NameServer configures it (idle timeout,
// frame budget, a transient handler answering NewResponse with a canned
// body); "lean" is loadgen's lean limit over the same connection (find the
// opaque with a byte search, write a canned frame). The difference is what
// the remoting layer costs per request.
func BenchmarkConnPerRequest(b *testing.B) {
	b.Run("server", func(b *testing.B) {
		s := NewServer(ServerConfig{
			Logger: hclog.NewNullLogger(), IdleTimeout: 120 * time.Second,
			PartialFrameBudget: 64 << 20, MaxPendingResponseBytes: 64 << 20,
		})
		s.RegisterTransient(GetRouteinfoByTopic, func(_ *Conn, req *Command) (*Command, error) {
			if req.ExtFields["topic"] == "" {
				return NewResponse(req, TopicNotExist, "no topic"), nil
			}
			resp := NewResponse(req, Success, "")
			resp.Body = routeBody
			return resp, nil
		})
		benchConn(b, func(nc net.Conn) { s.startConn(nc) })
		require.NoError(b, s.Close())
	})
	b.Run("lean", func(b *testing.B) {
		resp := NewResponse(&Command{Opaque: 12345}, Success, "")
		resp.Body = routeBody
		canned := EncodeFrame(nil, resp)
		benchConn(b, func(nc net.Conn) { go leanServe(nc, canned) })
	})
}

// benchConn serves b.N lookups over a scriptedConn with serve and checks
// that every one was answered.
func benchConn(b *testing.B, serve func(net.Conn)) {
	nc := &scriptedConn{frame: lookupFrame, left: b.N, done: make(chan struct{})}
	b.ReportAllocs()
	b.ResetTimer()
	serve(nc)
	<-nc.done
	b.StopTimer()
	require.Equal(b, b.N, nc.responses, "every lookup answered")
}

// leanServe answers every frame of nc with canned, its opaque replaced by
// the request's (found by a byte search), decoding nothing.
func leanServe(nc net.Conn, canned []byte) {
	defer nc.Close()
	key := []byte(`"opaque":`)
	i := bytes.Index(canned, key) + len(key)
	j := i + bytes.IndexByte(canned[i:], ',')
	headA, headB := canned[8:i], canned[j:]
	hlBase := int(binary.BigEndian.Uint32(canned[4:])) - (j - i)
	r := bufio.NewReaderSize(nc, 64<<10)
	var frame, out []byte
	var word [4]byte
	for {
		if _, err := io.ReadFull(r, word[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(word[:]))
		if cap(frame) < n {
			frame = make([]byte, n)
		}
		frame = frame[:n]
		if _, err := io.ReadFull(r, frame); err != nil {
			return
		}
		k := bytes.Index(frame, key) + len(key)
		e := k
		for e < len(frame) && frame[e] >= '0' && frame[e] <= '9' {
			e++
		}
		digits := frame[k:e]
		out = binary.BigEndian.AppendUint32(out[:0], uint32(4+len(headA)+len(digits)+len(headB)))
		out = binary.BigEndian.AppendUint32(out, uint32(hlBase+len(digits)))
		out = append(append(append(out, headA...), digits...), headB...)
		if _, err := nc.Write(out); err != nil {
			return
		}
	}
}

// scriptedConn is a net.Conn whose Reads return frame left times, one per
// Read, then io.EOF; Writes count the response frames. done is closed
// when it is closed.
type scriptedConn struct {
	frame     []byte
	left      int
	responses int
	mu        sync.Mutex
	closed    bool
	done      chan struct{}
}

func (c *scriptedConn) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	c.left--
	return copy(p, c.frame), nil
}

func (c *scriptedConn) Write(p []byte) (int, error) {
	for rest := p; len(rest) >= 4; c.responses++ {
		rest = rest[4+binary.BigEndian.Uint32(rest):]
	}
	return len(p), nil
}

func (c *scriptedConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.done)
	}
	return nil
}

func (c *scriptedConn) LocalAddr() net.Addr              { return scriptedAddr("local") }
func (c *scriptedConn) RemoteAddr() net.Addr             { return scriptedAddr("remote") }
func (c *scriptedConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptedConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptedConn) SetWriteDeadline(time.Time) error { return nil }
func (c *scriptedConn) String() string                   { return "scripted" }
func (a scriptedAddr) Network() string                   { return "tcp" }
func (a scriptedAddr) String() string                    { return string(a) + ":" + strconv.Itoa(1) }

type scriptedAddr string
