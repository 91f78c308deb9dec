package metrics

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/connlimit"
	"github.com/rmqgo/nameserver/internal/poll"
)

func startLimited(t *testing.T, lim Limits) *Endpoint {
	t.Helper()
	e, err := Listen(EndpointConfig{Addr: "127.0.0.1:0", Limits: lim})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Shutdown(context.Background())) })
	return e
}

// keepAlive opens a connection and gets /healthz over it, keeping it
// open; err is the failure of the request (a refused connection is
// closed before its answer).
func keepAlive(t *testing.T, addr string) (net.Conn, *bufio.Reader, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	br := bufio.NewReader(c)
	return c, br, getOn(c, br)
}

func getOn(c net.Conn, br *bufio.Reader) error {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func TestEndpointConnectionCap(t *testing.T) {
	e := startLimited(t, Limits{MaxConnections: 3, Budget: connlimit.NewBudget(100)})
	addr := e.Addr().String()
	var kept []net.Conn
	var readers []*bufio.Reader
	for range 3 {
		c, br, err := keepAlive(t, addr)
		require.NoError(t, err)
		kept, readers = append(kept, c), append(readers, br)
	}
	for range 2 {
		c, br, err := keepAlive(t, addr)
		require.NoError(t, err, "a connection over the cap takes the oldest one's place")
		kept, readers = append(kept, c), append(readers, br)
	}
	open, evicted := e.Conns()
	require.Equal(t, 3, open)
	require.Equal(t, uint64(2), evicted)
	for i, c := range kept[:2] {
		require.Error(t, getOn(c, readers[i]), "connection %d, the oldest, was closed", i)
	}
	for i, c := range kept[2:] {
		require.NoError(t, getOn(c, readers[2+i]), "the newest connections keep being served")
	}
	require.NoError(t, kept[4].Close())
	poll.Until(t, "open == 2", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { open, _ := e.Conns(); return open == 2 }))
	_, _, err := keepAlive(t, addr)
	require.NoError(t, err, "a closed connection gives its place back")
	_, evicted = e.Conns()
	require.Equal(t, uint64(2), evicted, "taken without closing another")
}

func TestEndpointSideBudgetIsShared(t *testing.T) {
	b := connlimit.NewBudget(2)
	e1 := startLimited(t, Limits{MaxConnections: 10, Budget: b})
	e2 := startLimited(t, Limits{MaxConnections: 10, Budget: b})
	c1, br1, err := keepAlive(t, e1.Addr().String())
	require.NoError(t, err)
	_, _, err = keepAlive(t, e2.Addr().String())
	require.NoError(t, err)
	_, _, err = keepAlive(t, e2.Addr().String())
	require.NoError(t, err, "over the budget, the oldest connection gives its place")
	require.Error(t, getOn(c1, br1), "the other listener's oldest connection was closed")
	require.Equal(t, 2, b.InUse())
	open1, _ := e1.Conns()
	open2, evicted2 := e2.Conns()
	require.Equal(t, [3]int{0, 2, 1}, [3]int{open1, open2, int(evicted2)})
}

func TestEndpointClosesIdleKeepAlive(t *testing.T) {
	e := startLimited(t, Limits{IdleTimeout: 200 * time.Millisecond, Budget: connlimit.NewBudget(100)})
	c, _, err := keepAlive(t, e.Addr().String())
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	n, err := c.Read(make([]byte, 1))
	require.Zero(t, n)
	require.ErrorIs(t, err, io.EOF, "the server closes the idle connection (deadline 10 s)")
	poll.Until(t, "open == 0", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { open, _ := e.Conns(); return open == 0 }))
}

func TestEndpointClosesSlowHeader(t *testing.T) {
	e := startLimited(t, Limits{ReadHeaderTimeout: 200 * time.Millisecond, Budget: connlimit.NewBudget(100)})
	c, err := net.Dial("tcp", e.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET /healthz HTTP/1.1\r\n") // and never the rest
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = io.ReadAll(c)
	require.NoError(t, err, "closed by the server before the 10 s deadline")
}

func TestEndpointMaxHeaderBytes(t *testing.T) {
	e := startLimited(t, Limits{MaxHeaderBytes: 4096, Budget: connlimit.NewBudget(100)})
	req, err := http.NewRequest(http.MethodGet, "http://"+e.Addr().String()+"/healthz", nil)
	require.NoError(t, err)
	req.Header.Set("X-Big", strings.Repeat("a", 64<<10))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
}

func TestLimitsFromKeys(t *testing.T) {
	lim := LimitsFrom(config.Default().MetricsListener).withDefaults()
	require.Equal(t, DefaultMaxConnections, lim.MaxConnections)
	require.Equal(t, DefaultIdleTimeout, lim.IdleTimeout)
	require.Equal(t, DefaultReadHeaderTimeout, lim.ReadHeaderTimeout)
	require.Equal(t, DefaultReadTimeout, lim.ReadTimeout)
	require.Equal(t, DefaultWriteTimeout, lim.WriteTimeout)
	require.Equal(t, DefaultMaxHeaderBytes, lim.MaxHeaderBytes)
	require.Equal(t, Limits{}.withDefaults(), LimitsFrom(config.MetricsListener{}).withDefaults())
}
