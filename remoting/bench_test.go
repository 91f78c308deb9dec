package remoting

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// clientGoRouteHeader is a route request as rocketmq-client-go sends it.
const clientGoRouteHeader = `{"code":105,"language":"GO","version":317,"opaque":1,"flag":0,"remark":"","extFields":{"topic":"T"}}`

func BenchmarkEncodeJSONHeader(b *testing.B) {
	resp := NewResponse(&Command{Opaque: 12345}, Success, "")
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendJSONHeader(buf[:0], resp)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkEncodeJSONHeaderExt(b *testing.B) {
	resp := NewResponse(&Command{Opaque: 12345}, Success, "")
	resp.ExtFields = map[string]string{"haServerAddr": "10.0.0.1:10912", "masterAddr": "10.0.0.1:10911"}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendJSONHeader(buf[:0], resp)
	}
}

func BenchmarkDecodeJSONHeader(b *testing.B) {
	header := []byte(clientGoRouteHeader)
	b.ReportAllocs()
	b.SetBytes(int64(len(header)))
	for b.Loop() {
		c := &Command{}
		if err := decodeJSONHeader(header, c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeFrame(b *testing.B) {
	frame := frameOf(b, &Command{Code: 105, Language: "GO", Version: 317, Opaque: 1, ExtFields: map[string]string{"topic": "TopicTest"}})[4:]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeFrame(frame, true); err != nil {
			b.Fatal(err)
		}
	}
}

// routeBody stands in for a pre-encoded TopicRouteData of a few brokers.
var routeBody = []byte(`{"brokerDatas":[` + strings.Repeat(`{"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false},`, 3) +
	`{}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}]}`)

// BenchmarkServerRoundTrip: pipelined route lookups over loopback through
// the Server (canned body, as a route snapshot would give) and Client.
func BenchmarkServerRoundTrip(b *testing.B) {
	s := NewServer(ServerConfig{Logger: hclog.NewNullLogger()})
	s.Register(GetRouteinfoByTopic, func(_ *Conn, req *Command) (*Command, error) {
		resp := NewResponse(req, Success, "")
		resp.Body = routeBody
		return resp, nil
	})
	benchRoundTrip(b, startServer(b, s))
}

// BenchmarkCannedRoundTrip is the baseline: a bare loop per connection that
// decodes each frame and writes a canned response through a bufio.Writer.
func BenchmarkCannedRoundTrip(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	b.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go cannedLoop(nc)
		}
	}()
	benchRoundTrip(b, ln.Addr().String())
}

func cannedLoop(nc net.Conn) {
	defer nc.Close()
	r, w := bufio.NewReaderSize(nc, 16<<10), bufio.NewWriterSize(nc, 64<<10)
	resp := &Command{Code: Success, Language: LanguageJava, Version: CurrentVersion, Flag: FlagResponse, Body: routeBody}
	var buf, out []byte
	for {
		frame, err := ReadFrame(r, 0, buf)
		if err != nil {
			return
		}
		buf = frame[:0]
		req, err := decodeFrame(frame, false)
		if err != nil {
			return
		}
		resp.Opaque = req.Opaque
		out = EncodeFrame(out[:0], resp)
		_, _ = w.Write(out)
		if r.Buffered() == 0 && w.Flush() != nil {
			return
		}
	}
}

// benchRoundTrip runs parallel Invokes over 4 pipelined clients.
func benchRoundTrip(b *testing.B, addr string) {
	clients := make([]*Client, 4)
	for i := range clients {
		clients[i] = dial(b, addr, ClientOptions{Logger: hclog.NewNullLogger()})
	}
	var next atomic.Uint32
	req := &Command{Code: GetRouteinfoByTopic, Language: "GO", Version: 317, ExtFields: map[string]string{"topic": "TopicTest"}}
	b.ReportAllocs()
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c := clients[next.Add(1)%uint32(len(clients))]
		for pb.Next() {
			resp, err := c.Invoke(context.Background(), req)
			if err != nil || resp.Code != Success {
				b.Errorf("invoke: %v %v", resp, err)
				return
			}
		}
	})
}

// BenchmarkDecodeJSONHeaderStdlib is a reference point: encoding/json
// decoding the same header into an equivalent struct.
func BenchmarkDecodeJSONHeaderStdlib(b *testing.B) {
	header := []byte(clientGoRouteHeader)
	b.ReportAllocs()
	for b.Loop() {
		var v struct {
			Code      int32
			Language  string
			Version   int32
			Opaque    int32
			Flag      int32
			Remark    string
			ExtFields map[string]string
		}
		if err := json.Unmarshal(header, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeJSONHeaderRecycled decodes the header of a client's route
// lookup into a recycled Command and map, as the read loop does for a
// RegisterTransient code.
func BenchmarkDecodeJSONHeaderRecycled(b *testing.B) {
	header := []byte(clientGoRouteHeader)
	c, m := &Command{}, make(map[string]string, 4)
	b.ReportAllocs()
	b.SetBytes(int64(len(header)))
	for b.Loop() {
		*c = Command{}
		clear(m)
		if _, err := decodeJSONHeaderSpare(header, c, m); err != nil {
			b.Fatal(err)
		}
	}
}
