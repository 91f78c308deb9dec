package remoting

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Codes of the pipelining test: a transient, a plain and an async handler.
const (
	codeTransient int32 = 105
	codeKept      int32 = 106
	codeAsync     int32 = 103
)

// echoExt answers req's extFields in a new map, its body as remark.
func echoExt(req *Command) *Command {
	resp := NewResponse(req, Success, string(req.Body))
	resp.ExtFields = make(map[string]string, len(req.ExtFields))
	for k, v := range req.ExtFields {
		resp.ExtFields[k] = v
	}
	return resp
}

// keptRequest is a request a plain handler stored, with the fields it had.
type keptRequest struct {
	req  *Command
	want map[string]string
}

// TestTransientPipelinedResponsesMatchRequests pipelines many different
// requests on one connection to a RegisterTransient handler (its requests
// are recycled), a plain one that keeps its requests and an async one that
// reads its request after the read loop has moved on. Every response must
// carry its own request's fields, and no kept request may change.
func TestTransientPipelinedResponsesMatchRequests(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	var mu sync.Mutex
	var kept []keptRequest
	s, addr := newTestServer(t, ServerConfig{MaxAsyncPerConn: 64})
	s.RegisterTransient(codeTransient, func(_ *Conn, req *Command) (*Command, error) { return echoExt(req), nil })
	s.Register(codeKept, func(_ *Conn, req *Command) (*Command, error) {
		mu.Lock()
		kept = append(kept, keptRequest{req, cloneExt(req.ExtFields)})
		mu.Unlock()
		return echoExt(req), nil
	})
	s.RegisterAsync(codeAsync, func(_ *Conn, req *Command) (*Command, error) {
		for range 3 {
			time.Sleep(time.Microsecond) // let the read loop decode later frames meanwhile
		}
		return echoExt(req), nil
	})
	c := dial(t, addr, ClientOptions{})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pipelineRequests(t, c, rand.New(rand.NewSource(seed+int64(g))), g)
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, kept)
	for _, k := range kept {
		require.Equal(t, k.want, cloneExt(k.req.ExtFields), "a kept request changed")
	}
}

// pipelineRequests sends 200 requests of random codes and extFields and
// checks each response against its request.
func pipelineRequests(t *testing.T, c *Client, rng *rand.Rand, g int) {
	codes := []int32{codeTransient, codeTransient, codeTransient, codeKept, codeAsync}
	for i := range 200 {
		ext := map[string]string{}
		for j := range rng.Intn(maxRecycledExt + 4) { // more than maxRecycledExt sometimes
			ext["k"+strconv.Itoa(j)] = fmt.Sprintf("g%d-i%d-j%d-%d", g, i, j, rng.Int63())
		}
		if rng.Intn(8) == 0 {
			ext = nil
		}
		body := []byte(fmt.Sprintf("body-%d-%d", g, i))
		req := NewRequest(codes[rng.Intn(len(codes))], ext, body)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := c.Invoke(ctx, req)
		cancel()
		require.NoError(t, err)
		require.Equal(t, Success, resp.Code)
		require.Equal(t, string(body), resp.Remark, "response of another request")
		require.Equal(t, cloneExt(ext), cloneExt(resp.ExtFields), "response of another request")
	}
}

// cloneExt copies m, nil and empty alike as an empty map.
func cloneExt(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestSpareRequestDecodesWithoutAllocating: once a transient request was
// kept, a route lookup's frame decodes into it without allocating, and a
// recycled map starts empty.
func TestSpareRequestDecodesWithoutAllocating(t *testing.T) {
	first := frameOf(t, &Command{Code: 105, Language: "GO", Version: 317, Opaque: 1,
		ExtFields: map[string]string{"topic": "TopicTest", "other": "x"}})[4:]
	second := frameOf(t, &Command{Code: 105, Language: "GO", Version: 317, Opaque: 2,
		ExtFields: map[string]string{"topic": "true"}})[4:]
	var sp spareRequest
	cmd, err := sp.decode(first, true)
	require.NoError(t, err)
	sp.keep(cmd)
	cmd, err = sp.decode(second, true)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"topic": "true"}, cmd.ExtFields)
	require.EqualValues(t, 2, cmd.Opaque)
	sp.keep(cmd)
	allocs := testing.AllocsPerRun(100, func() {
		c, err := sp.decode(second, true)
		if err != nil {
			panic(err)
		}
		sp.keep(c)
	})
	require.Zero(t, allocs)
}

// TestSpareRequestDropsLargeMaps: a map of more than maxRecycledExt
// entries is not kept (a cleared map keeps its buckets).
func TestSpareRequestDropsLargeMaps(t *testing.T) {
	ext := map[string]string{}
	for i := range maxRecycledExt + 1 {
		ext["k"+strconv.Itoa(i)] = "v"
	}
	var sp spareRequest
	cmd, err := sp.decode(frameOf(t, &Command{Code: 105, ExtFields: ext})[4:], true)
	require.NoError(t, err)
	sp.keep(cmd)
	require.Nil(t, sp.ext)
	require.NotNil(t, sp.cmd)
}

// FuzzRecycledDecode: a frame decoded into a recycled Command and map
// (after another frame) must equal the frame decoded afresh: nothing of the
// earlier request may show through.
func FuzzRecycledDecode(f *testing.F) {
	seeds := seedFrames(f)
	for i, fr := range seeds {
		f.Add(seeds[(i+1)%len(seeds)], fr)
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		var sp spareRequest
		if c, err := sp.decode(first, true); err == nil {
			sp.keep(c)
		}
		fresh, errFresh := DecodeFrame(second)
		got, err := sp.decode(second, true)
		if errFresh != nil {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		require.Equal(t, fresh, got)
	})
}
