package namesrv

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// BenchmarkRegister10kFloor is the transport floor under
// BenchmarkRegister10kLoopback: the same REGISTER_BROKER frame (10,000
// topics) sent to a bare server that reads each frame into one reused
// buffer, decodes its header only and answers SUCCESS. "client" sends it
// through remoting.Client (the benchmark's client cost included); "raw"
// writes the pre-encoded frame on a bare connection and reads the answer,
// which leaves only the kernel's loopback copies and wake-ups.
func BenchmarkRegister10kFloor(b *testing.B) {
	addr := startBareServer(b)
	req := javaRegister(remoting.RegisterBroker, registerBody(b, 10_000, 5))
	b.Run("client", func(b *testing.B) {
		c := dialAddr(b, addr)
		for range b.N {
			require.Equal(b, remoting.Success, invoke(b, c, req).Code)
		}
	})
	b.Run("raw", func(b *testing.B) {
		nc, err := net.Dial("tcp", addr)
		require.NoError(b, err)
		defer nc.Close()
		frame := remoting.EncodeFrame(nil, req)
		r := bufio.NewReader(nc)
		b.SetBytes(int64(len(frame)))
		for range b.N {
			_, err := nc.Write(frame)
			require.NoError(b, err)
			_, err = remoting.ReadFrame(r, 0, nil)
			require.NoError(b, err)
		}
	})
}

// startBareServer serves the bare floor server of BenchmarkRegister10kFloor
// until the benchmark ends.
func startBareServer(b *testing.B) string { return serveEach(b, serveBare) }

// serveEach listens on a loopback port until the benchmark ends, serving
// each accepted connection with serve on its own goroutine, and returns
// the address.
func serveEach(b *testing.B, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	b.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(nc)
		}
	}()
	return ln.Addr().String()
}

// serveBare answers every frame on nc with SUCCESS, reading it into one
// reused buffer.
func serveBare(nc net.Conn) {
	defer nc.Close()
	r := bufio.NewReaderSize(nc, 64<<10)
	var buf, out []byte
	for {
		var word [4]byte
		if _, err := io.ReadFull(r, word[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(word[:]))
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return
		}
		hlen := int(binary.BigEndian.Uint32(buf) & 0xFFFFFF)
		req, err := remoting.DecodeFrame(buf[:4+hlen])
		if err != nil {
			return
		}
		out = remoting.EncodeFrame(out[:0], remoting.NewResponse(req, remoting.Success, ""))
		if _, err := nc.Write(out); err != nil {
			return
		}
	}
}

// dialAddr connects a remoting.Client to addr.
func dialAddr(b *testing.B, addr string) *remoting.Client {
	c, err := remoting.Dial(b.Context(), addr, remoting.ClientOptions{Logger: testLogger(b)})
	require.NoError(b, err)
	b.Cleanup(func() { _ = c.Close() })
	return c
}
