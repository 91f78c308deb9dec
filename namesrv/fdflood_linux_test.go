package namesrv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

// The HTTP flood runs against a NameServer in a child process (the test
// binary run again) whose RLIMIT_NOFILE is lowered to floodFdLimit, so the
// flood's own client sockets (in this process) take none of its fds.
const (
	floodChildEnv = "RMQ_FDFLOOD_CHILD"
	floodFdLimit  = 1024
	floodConns    = 1100 // idle keep-alive HTTP connections, past floodFdLimit
	floodLookups  = 200  // remoting lookups measured with and without the flood
)

// TestAttackHTTPFloodKeepsRemotingServed opens 1,100 idle keep-alive HTTP
// connections to the metrics endpoint of a NameServer limited to 1,024
// file descriptors, then asks for routes over the remoting port: brokers
// and clients must still connect and be answered. It prints the child's
// fds, its remoting accept errors and the lookup latency with and without
// the flood.
func TestAttackHTTPFloodKeepsRemotingServed(t *testing.T) {
	if os.Getenv(floodChildEnv) != "" {
		t.Skip("the child process runs TestFDFloodChild only")
	}
	child := startFloodChild(t, floodFdLimit)
	child.lookups(t, floodLookups/4) // warm up
	base := child.lookups(t, floodLookups)
	t.Logf("without flood: child fds=%d, lookups ok=%d failed=%d p50=%s p99=%s",
		child.fds(t), base.ok, base.failed, base.p(50), base.p(99))
	require.Zero(t, base.failed, "lookups fail without any flood")

	answered, conns := floodHTTP(t, child.metrics, floodConns)
	kept := stillOpen(conns)
	fds := child.fds(t)
	probeStatus, _, probeErr := healthProbe(child.metrics)
	stop := redialHTTP(child.metrics)
	under := child.lookups(t, floodLookups)
	redials := stop()
	acceptErrors, reserveWarnings := child.stats(t)
	t.Logf("under flood: %d of %d HTTP connections answered, %d still open; child fds=%d (limit %d), remoting accept errors=%d",
		answered, floodConns, kept, fds, floodFdLimit, acceptErrors)
	t.Logf("under flood: a liveness probe over a new connection: %d %v", probeStatus, probeErr)
	t.Logf("under flood: %d more HTTP connections dialled during the lookups", redials)
	t.Logf("under flood: lookups ok=%d failed=%d p50=%s p99=%s (first error: %v)",
		under.ok, under.failed, under.p(50), under.p(99), under.firstErr)
	require.Zero(t, under.failed, "remoting lookups failed under the HTTP flood: %v", under.firstErr)
	require.NoError(t, probeErr, "/healthz over a new connection while the flood holds every place")
	require.Equal(t, http.StatusOK, probeStatus)
	require.Equal(t, 1, reserveWarnings, "serverMaxConnections=10000 does not fit in 3/4 of %d fds", floodFdLimit)
}

// TestAttackRemotingSurvivesFdExhaustion fills a NameServer limited to
// 128 file descriptors with idle remoting connections (its own listener
// past the limit, which serverMaxConnections=10000 allows: the start-up
// warning says so): the accept loop must back off, not spin, and serve a
// new client once connections close.
func TestAttackRemotingSurvivesFdExhaustion(t *testing.T) {
	if os.Getenv(floodChildEnv) != "" {
		t.Skip("the child process runs TestFDFloodChild only")
	}
	child := startFloodChild(t, 128)
	var conns []net.Conn
	for range 200 {
		c, err := net.DialTimeout("tcp", child.remoting, 2*time.Second)
		require.NoError(t, err)
		conns = append(conns, c)
	}
	poll.Until(t, "child.fds(t) >= 128", 10*time.Second, 10*time.Millisecond, poll.True(func() bool { return child.fds(t) >= 128 }))
	cpu0, errs0 := child.cpu(t), first(child.stats(t))
	time.Sleep(2 * time.Second) // exhausted: measure what the accept loop costs meanwhile
	cpu1, errs1 := child.cpu(t), first(child.stats(t))
	t.Logf("exhausted for 2 s: child fds=%d, %d accept errors logged, %s of CPU", child.fds(t), errs1-errs0, cpu1-cpu0)
	for _, c := range conns {
		_ = c.Close()
	}
	poll.Until(t, "a new client is served once connections closed", 20*time.Second, 50*time.Millisecond, poll.True(func() bool { return lookupOnce(child.remoting) == nil }))
}

func first(a, _ int) int { return a }

// cpu is the child's user and system CPU time so far.
func (c *floodChild) cpu(t *testing.T) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	require.NoError(t, err)
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, err := strconv.ParseInt(f[11], 10, 64)
	require.NoError(t, err)
	stime, err := strconv.ParseInt(f[12], 10, 64)
	require.NoError(t, err)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ 100
}

// TestFDFloodChild is the child process of
// TestAttackHTTPFloodKeepsRemotingServed: it lowers RLIMIT_NOFILE, starts a
// NameServer with its metrics endpoint, prints both addresses and answers
// "stats" lines on stdin until stdin closes.
func TestFDFloodChild(t *testing.T) {
	if os.Getenv(floodChildEnv) == "" {
		t.Skip("run by TestAttackHTTPFloodKeepsRemotingServed")
	}
	limit, err := strconv.ParseUint(os.Getenv(floodChildEnv), 10, 64)
	require.NoError(t, err)
	var lim syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	lim.Cur = limit
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
	logger, lines := testlog.Capture(t, "child", hclog.Warn)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cfg := testConfig(t)
	cfg.MetricsExporterType = "PROM"
	srv, err := New(cfg, logger, WithMetricsListener(ln))
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	defer func() { _ = srv.Shutdown(context.Background()) }()
	fmt.Printf("FDFLOOD addr %s %s\n", srv.Addr(), srv.MetricsAddr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		fmt.Printf("FDFLOOD stats %d %d\n", lines.Count("accept failed"),
			lines.Count("serverMaxConnections exceeds the file descriptors left to remoting"))
	}
}

// floodChild is the running child process.
type floodChild struct {
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Scanner
	remoting string
	metrics  string
}

// startFloodChild starts the child with RLIMIT_NOFILE lowered to limit.
func startFloodChild(t *testing.T, limit int) *floodChild {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFDFloodChild$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", floodChildEnv, limit))
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &floodChild{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() {
		_ = in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			t.Logf("child exited: %v", err)
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	f := strings.Fields(c.line(t, "addr"))
	c.remoting, c.metrics = f[0], f[1]
	return c
}

// line returns the rest of the child's next "FDFLOOD <kind>" line.
func (c *floodChild) line(t *testing.T, kind string) string {
	prefix := "FDFLOOD " + kind + " "
	for c.out.Scan() {
		if s, ok := strings.CutPrefix(c.out.Text(), prefix); ok {
			return s
		}
	}
	t.Fatalf("child ended before its %q line: %v", kind, c.out.Err())
	return ""
}

// fds counts the child's open file descriptors.
func (c *floodChild) fds(t *testing.T) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", c.cmd.Process.Pid))
	require.NoError(t, err)
	return len(ents)
}

// stats returns how many "accept failed" warnings the child logged and
// how many said serverMaxConnections does not fit in the fd limit.
func (c *floodChild) stats(t *testing.T) (acceptErrors, reserveWarnings int) {
	_, err := io.WriteString(c.in, "stats\n")
	require.NoError(t, err)
	_, err = fmt.Sscan(c.line(t, "stats"), &acceptErrors, &reserveWarnings)
	require.NoError(t, err)
	return acceptErrors, reserveWarnings
}

// lookupRun is the outcome of a series of route lookups.
type lookupRun struct {
	ok, failed int
	lat        []time.Duration
	firstErr   error
}

func (r *lookupRun) p(pct int) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	s := slices.Clone(r.lat)
	slices.Sort(s)
	return s[(len(s)-1)*pct/100]
}

// lookups dials the child's remoting port and sends n route lookups, each
// on a new connection (as a new client would; the latency is the dial's
// and the lookup's), stopping after three failures when none succeeded.
func (c *floodChild) lookups(t *testing.T, n int) *lookupRun {
	r := &lookupRun{}
	for i := 0; i < n && (r.failed < 3 || r.ok > 0); i++ {
		start := time.Now()
		if err := lookupOnce(c.remoting); err != nil {
			r.failed++
			if r.firstErr == nil {
				r.firstErr = err
			}
			continue
		}
		r.ok++
		r.lat = append(r.lat, time.Since(start))
	}
	return r
}

func lookupOnce(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // generous: CI runs loaded
	defer cancel()
	cl, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = cl.Close() }()
	resp, err := cl.Invoke(ctx, remoting.NewRequest(remoting.GetRouteinfoByTopic,
		map[string]string{"topic": "NoSuchTopic"}, nil))
	if err != nil {
		return err
	}
	if resp.Code != remoting.TopicNotExist {
		return fmt.Errorf("lookup answered %d", resp.Code)
	}
	return nil
}

// redialHTTP keeps opening HTTP connections to addr, each closed after
// its answer or refusal, until the returned function is called; that
// function returns how many were opened.
func redialHTTP(addr string) func() int {
	done := make(chan struct{})
	var n int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				continue
			}
			n++
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
			_, _ = io.Copy(io.Discard, c)
			_ = c.Close()
		}
	}()
	return func() int { close(done); wg.Wait(); return n }
}

// floodHTTP opens n connections to addr, sends one keep-alive GET
// /healthz on each and reads its answer, leaving the connections open
// (closed at the end of the test); it returns how many were answered and
// the connections.
func floodHTTP(t *testing.T, addr string, n int) (int, []net.Conn) {
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for range n {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			break
		}
		conns = append(conns, c)
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	var kept sync.WaitGroup
	var mu sync.Mutex
	answered := 0
	deadline := time.Now().Add(3 * time.Second)
	for _, c := range conns {
		kept.Add(1)
		go func() {
			defer kept.Done()
			_ = c.SetReadDeadline(deadline)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				return
			}
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK && !resp.Close {
				mu.Lock()
				answered++
				mu.Unlock()
			}
		}()
	}
	kept.Wait()
	return answered, conns
}

// stillOpen counts the connections the server has not closed (a read
// times out rather than ending).
func stillOpen(conns []net.Conn) int {
	var open atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(200 * time.Millisecond)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(deadline)
			if _, err := c.Read(make([]byte, 1)); errors.Is(err, os.ErrDeadlineExceeded) {
				open.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(open.Load())
}

// healthProbe asks /healthz over a new connection, as a liveness probe.
func healthProbe(addr string) (int, string, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get("http://" + addr + "/healthz")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}
