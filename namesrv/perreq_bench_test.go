package namesrv

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// The request header as rocketmq-client-go writes it (as loadgen sends it),
// split around the opaque.
const (
	rawReqHeadA = `{"code":105,"language":"GO","version":317,"opaque":`
	rawReqHeadB = `,"flag":0,"remark":"","extFields":{"topic":"p-topic-000001"}}`
)

// BenchmarkLookupPerRequest is GET_ROUTEINFO_BY_TOPIC over 16 loopback
// connections, one request outstanding on each, from a bare client (one
// write and one buffered read per lookup, as loadgen's scale rows): the
// NameServer ("route") against a lean server in the same process that
// finds the opaque with a byte search and writes the same response frame
// ("lean", loadgen's lean limit). The client's cost is the same in both,
// so the difference of cpu-µs/op is what the NameServer pays per request
// that the lean server does not.
func BenchmarkLookupPerRequest(b *testing.B) {
	srv := startServer(b, nil)
	invoke(b, dial(b, srv), registerRequest(b, "p", "127.0.0.1:10911", 2))
	b.Run("route", func(b *testing.B) { benchRawLookups(b, srv.Addr().String()) })
	b.Run("lean", func(b *testing.B) { benchRawLookups(b, startLean(b, srv)) })
}

// benchRawLookups runs b.N closed-loop lookups over 16 bare connections.
func benchRawLookups(b *testing.B, addr string) {
	const conns = 16
	clients := make([]net.Conn, conns)
	for i := range clients {
		nc, err := net.Dial("tcp", addr)
		require.NoError(b, err)
		b.Cleanup(func() { _ = nc.Close() })
		clients[i] = nc
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	var wg sync.WaitGroup
	per := b.N/conns + 1
	for _, nc := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := rawLookups(nc, per); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(per*conns), "cpu-µs/op")
}

// rawLookups sends n lookups over nc one at a time and checks each answer.
func rawLookups(nc net.Conn, n int) error {
	r := bufio.NewReaderSize(nc, 64<<10)
	var wbuf, rbuf []byte
	for opaque := 1; opaque <= n; opaque++ {
		b := append(wbuf[:0], 0, 0, 0, 0, 0, 0, 0, 0)
		b = append(b, rawReqHeadA...)
		b = strconv.AppendInt(b, int64(opaque), 10)
		b = append(b, rawReqHeadB...)
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		binary.BigEndian.PutUint32(b[4:], uint32(len(b)-8))
		wbuf = b
		if _, err := nc.Write(b); err != nil {
			return err
		}
		frame, err := remoting.ReadFrame(r, 0, rbuf)
		if err != nil {
			return err
		}
		rbuf = frame[:0]
		want := `{"code":0,"flag":1,"language":"JAVA","opaque":` + strconv.Itoa(opaque) + `,`
		if !bytes.HasPrefix(frame[4:], []byte(want)) {
			return errors.New("unexpected response: " + string(frame[4:min(len(frame), 120)]))
		}
	}
	return nil
}

// startLean starts the lean server answering with srv's response frame of
// the benchmark's lookup, and returns its address.
func startLean(b *testing.B, srv *Server) string {
	c := dial(b, srv)
	req := lookupReq("p-topic-000001", 317)
	req.Language = "GO"
	resp := invoke(b, c, req)
	require.Equal(b, remoting.Success, resp.Code)
	resp.Opaque = 1234567890
	frame, err := remoting.AppendFrame(nil, resp)
	require.NoError(b, err)
	i := bytes.Index(frame, []byte("1234567890"))
	require.Positive(b, i)
	headA, headB := frame[8:i], frame[i+10:]
	hlBase := int(binary.BigEndian.Uint32(frame[4:])) - 10
	return serveEach(b, func(nc net.Conn) { leanLoop(nc, headA, headB, hlBase) })
}

// leanLoop answers every frame of nc with headA, its opaque's digits and
// headB (header and body), decoding nothing.
func leanLoop(nc net.Conn, headA, headB []byte, hlBase int) {
	defer nc.Close()
	r := bufio.NewReaderSize(nc, 64<<10)
	var frame, out []byte
	var word [4]byte
	key := []byte(`"opaque":`)
	for {
		if _, err := io.ReadFull(r, word[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(word[:]))
		if n < 4 || n > 1<<20 {
			return
		}
		if cap(frame) < n {
			frame = make([]byte, n)
		}
		frame = frame[:n]
		if _, err := io.ReadFull(r, frame); err != nil {
			return
		}
		i := bytes.Index(frame, key)
		if i < 0 {
			return
		}
		j := i + len(key)
		for j < len(frame) && frame[j] >= '0' && frame[j] <= '9' {
			j++
		}
		digits := j - i - len(key)
		out = binary.BigEndian.AppendUint32(out[:0], uint32(4+len(headA)+digits+len(headB)))
		out = binary.BigEndian.AppendUint32(out, uint32(hlBase+digits))
		out = append(append(append(out, headA...), frame[i+len(key):j]...), headB...)
		if _, err := nc.Write(out); err != nil {
			return
		}
	}
}
