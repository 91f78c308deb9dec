package remoting

import (
	"bytes"
	"context"
	"crypto/tls"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rmqgo/nameserver/internal/testcerts"
)

// TestWriterLargeBodiesUnchanged pipelines requests of mixed body sizes
// (empty, small, just over and well over maxCopiedFrame, whose bodies the
// writer sends from their own slices) on one connection; every echo, in
// both directions through the writer, comes back byte for byte.
func TestWriterLargeBodiesUnchanged(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	s.Register(RegisterBroker, echo)
	echoMixedSizes(t, dial(t, addr, ClientOptions{}))
}

// TestWriterLargeBodiesUnchangedOverTLS is the same over TLS, where the
// head and the body are separate writes (records), not one writev.
func TestWriterLargeBodiesUnchangedOverTLS(t *testing.T) {
	ca := testcerts.NewCA(t, "writer-ca")
	cfg := &tls.Config{Certificates: []tls.Certificate{ca.Issue(t, testcerts.LeafOptions{}).TLS(t)},
		MinVersion: tls.VersionTLS12}
	hook := func(nc net.Conn) (net.Conn, error) {
		tc := tls.Server(nc, cfg)
		return tc, tc.Handshake()
	}
	s, addr := newTestServer(t, ServerConfig{ConnHooks: []ConnHook{hook}})
	s.Register(RegisterBroker, echo)
	echoMixedSizes(t, dial(t, addr, ClientOptions{TLS: &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost",
		MinVersion: tls.VersionTLS12}}))
}

// echoMixedSizes pipelines 48 echo requests of random sizes on c and
// checks every answer.
func echoMixedSizes(t *testing.T, c *Client) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	sizes := []int{0, 10, maxCopiedFrame, maxCopiedFrame + 1, 3 * maxBatchBytes, 1 << 20}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 48 {
		body := make([]byte, sizes[rng.IntN(len(sizes))])
		for j := range body {
			body[j] = byte(rng.Uint32())
		}
		wg.Go(func() {
			req := NewRequest(RegisterBroker, map[string]string{"i": strconv.Itoa(i)}, body)
			resp, err := c.Invoke(ctx, req)
			if err != nil {
				t.Errorf("request %d (%d bytes): %v", i, len(body), err)
			} else if resp.ExtFields["i"] != strconv.Itoa(i) || !bytes.Equal(resp.Body, body) {
				t.Errorf("request %d (%d bytes): fields %v, %d bytes back", i, len(body), resp.ExtFields, len(resp.Body))
			}
		})
	}
	wg.Wait()
}
