package statuspage

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/internal/version"
	"github.com/rmqgo/nameserver/metrics"
)

// fakeNamesrv has n live brokers named by name(i); it answers at most
// the limit asked, as namesrv.Server does, and counts the calls.
type fakeNamesrv struct {
	n     int
	name  func(i int) string
	calls atomic.Int32
}

func (f *fakeNamesrv) NamesrvStatus(limit int) Namesrv {
	f.calls.Add(1)
	ns := Namesrv{Listeners: []Listener{{"remoting", "127.0.0.1:9876"}, {"metrics", "127.0.0.1:5557"}},
		Topics: 7, Clusters: 1, BrokerGroups: f.n, LiveBrokers: f.n}
	for i := range min(f.n, limit) {
		ns.Brokers = append(ns.Brokers, Broker{Cluster: "DefaultCluster", Name: f.name(i), ID: 0,
			Addr: f.name(i) + ":10911", SinceHeartbeat: 12*time.Second + 900*time.Millisecond, Topics: 3})
	}
	return ns
}

// fakeController has n broker sets named by name(i), each with sync
// members in its sync-state set.
type fakeController struct {
	n, sync int
	name    func(i int) string
}

func (f *fakeController) ControllerStatus(limit int) Controller {
	c := Controller{Listeners: []Listener{{"controller remoting", "127.0.0.1:9878"}, {"controller raft", "127.0.0.1:9880"}},
		SelfID: "n0", LeaderID: "n0", RaftState: "Leader", Term: "2", ClusterVersion: 2, Format: 2, TotalSets: f.n,
		Members: []Member{{ID: "n0", RaftAddr: "127.0.0.1:9880", Addr: "127.0.0.1:9878", Voter: true}}}
	for i := range min(f.n, limit) {
		s := BrokerSet{Name: f.name(i), Cluster: "DefaultCluster", HasMaster: i%2 == 0, MasterID: 1,
			MasterAddr: f.name(i) + ":10911", MasterEpoch: 4, SyncStateSetEpoch: 5}
		for id := range f.sync {
			s.SyncStateSet = append(s.SyncStateSet, SyncMember{ID: int64(id + 1), Addr: f.name(i) + ":1091" + strconv.Itoa(id)})
		}
		c.Sets = append(c.Sets, s)
	}
	return c
}

func indexed(prefix string) func(int) string {
	return func(i int) string { return prefix + strconv.Itoa(i) }
}

func get(t *testing.T, p *Page) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	return rec.Result(), rec.Body.String()
}

// The page names the role, the versions, the listeners, each live broker
// with its last heartbeat in whole seconds, the topic counts and each
// broker set's master, epoch and sync-state set.
func TestPageShowsNodeBrokersAndBrokerSets(t *testing.T) {
	p := New()
	p.SetNamesrv(&fakeNamesrv{n: 2, name: indexed("broker-a")})
	p.SetController(&fakeController{n: 2, sync: 2, name: indexed("set-")})
	resp, body := get(t, p)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
	for _, want := range []string{"NameServer with embedded Controller", version.Version, version.Revision(),
		"127.0.0.1:9876", "127.0.0.1:5557", "controller raft", "127.0.0.1:9880",
		"<td>broker-a1</td>", "12 s ago", "<th>Topics</th><td class=\"n\">7</td>",
		"<td>set-0</td>", "1 (set-0:10911)", "1 (set-0:10910), 2 (set-0:10911)", `<span class="bad">none</span>`,
		"n0 (leader)", "Broker sets (2)"} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, "more</")
	require.NotContains(t, body, "<script")
}

// A page without sources (before the servers run) still renders.
func TestPageBeforeSources(t *testing.T) {
	resp, body := get(t, New())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, "RocketMQ starting")
	require.NotContains(t, body, "<h2>NameServer</h2>")
}

// hostile are names a stranger's broker may register.
var hostile = []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(2)>`, `'><svg onload=alert(3)>`,
	"</td></tr></table><script>alert(4)</script>", "bad\xffutf8<b>", `<style>body{display:none}</style>`,
	`javascript:alert(5)`, `<a href="http://evil.example/">x</a>`}

// Every name a stranger chooses is escaped: no tag of theirs reaches the
// page, and their text shows as text.
func TestPageEscapesStrangersNames(t *testing.T) {
	name := func(i int) string { return hostile[i%len(hostile)] }
	p := New()
	p.SetNamesrv(&fakeNamesrv{n: len(hostile), name: name})
	p.SetController(&fakeController{n: len(hostile), sync: 2, name: name})
	_, body := get(t, p)
	requireOwnTagsOnly(t, body)
	require.Equal(t, 1, strings.Count(body, "<style>"), "only the page's own style")
	require.Contains(t, body, "&lt;script&gt;alert(1)&lt;/script&gt;")
	require.Contains(t, body, "bad\uFFFDutf8&lt;b&gt;")
	require.Equal(t, strings.Count(body, "<tr>"), strings.Count(body, "</tr>"))
}

// ownTags and ownAttrs are what the page's template writes.
var (
	ownTags = map[string]bool{"!DOCTYPE": true, "html": true, "head": true, "meta": true, "title": true, "style": true,
		"body": true, "h1": true, "h2": true, "h3": true, "table": true, "tr": true, "th": true, "td": true,
		"code": true, "span": true, "p": true}
	ownAttrs = map[string]bool{"lang": true, "charset": true, "name": true, "content": true, "id": true, "class": true}
	tagRe    = regexp.MustCompile(`<(/?)([^\s>]+)([^>]*)>`)
	attrRe   = regexp.MustCompile(`([a-zA-Z-]+)="[^"]*"`)
)

// requireOwnTagsOnly checks that every tag and attribute of body is one
// the template writes: escaped text has no '<', so a stranger's tag
// would show as one more.
func requireOwnTagsOnly(t *testing.T, body string) {
	t.Helper()
	for _, m := range tagRe.FindAllStringSubmatch(body, -1) {
		require.True(t, ownTags[m[2]], "tag %q", m[0])
		rest := attrRe.ReplaceAllStringFunc(m[3], func(a string) string {
			require.True(t, ownAttrs[attrRe.FindStringSubmatch(a)[1]], "attribute in %q", m[0])
			return ""
		})
		if m[2] != "!DOCTYPE" {
			require.Empty(t, strings.Trim(rest, " "), "tag %q", m[0])
		}
	}
}

// With many brokers and sets, of the longest hostile names, the page
// shows MaxRows of each, says how many more, and its size does not grow
// with the tables.
func TestPageSizeBoundedWithManyBrokersAndSets(t *testing.T) {
	long := strings.Repeat("<", 1_000)
	name := func(i int) string { return long + strconv.Itoa(i) }
	size := func(n int) (int, string) {
		p := New()
		p.SetNamesrv(&fakeNamesrv{n: n, name: name})
		p.SetController(&fakeController{n: n, sync: 20, name: name})
		_, body := get(t, p)
		return len(body), body
	}
	small, _ := size(1_000)
	big, body := size(20_000)
	t.Logf("page of 20,000 brokers and 20,000 sets with 1,000-byte names: %d bytes", big)
	require.InDelta(t, small, big, 16, "the page grows with the tables")
	require.Less(t, big, 2<<20)
	require.Equal(t, MaxRows, strings.Count(body, "<tr><td>DefaultCluster</td>"), "brokers shown")
	require.Equal(t, MaxRows, strings.Count(body, "</td><td>DefaultCluster</td>"), "broker sets shown")
	require.Contains(t, body, "and 19800 more</p>")
	require.Equal(t, 2, strings.Count(body, "and 19800 more</p>"), "brokers and sets")
	require.Contains(t, body, "and 12 more</span>", "sync-state set cut to MaxSync")
	require.Contains(t, body, "…")
}

// A rendering is served again for Refresh, on the monotonic clock: a
// flood of requests reads the sources once a Refresh.
func TestPageRendersOncePerRefresh(t *testing.T) {
	clock := monotime.NewFake(time.Unix(1_700_000_000, 0))
	p := New()
	p.clock = clock
	ns := &fakeNamesrv{n: 1, name: indexed("b")}
	p.SetNamesrv(ns)
	for range 50 {
		get(t, p)
	}
	require.EqualValues(t, 1, ns.calls.Load())
	clock.StepWall(time.Hour)
	get(t, p)
	require.EqualValues(t, 1, ns.calls.Load(), "a wall-clock step is no time passing")
	clock.Advance(Refresh)
	get(t, p)
	require.EqualValues(t, 2, ns.calls.Load())
}

func TestAgoIsWholeSeconds(t *testing.T) {
	require.Equal(t, "0 s ago", ago(999*time.Millisecond))
	require.Equal(t, "61 s ago", ago(61*time.Second+500*time.Millisecond))
	require.Equal(t, "0 s ago", ago(-time.Second))
}

// Mounted on the metrics endpoint, the page answers GET and HEAD of /
// only; other methods get 405 and the endpoint's paths are unchanged.
func TestPageOnMetricsEndpointReadOnly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := New()
	p.SetNamesrv(&fakeNamesrv{n: 1, name: indexed("broker-")})
	ep, err := metrics.Listen(metrics.EndpointConfig{Listener: ln, Routes: map[string]http.Handler{Pattern: p}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ep.Shutdown(context.Background())) })
	base := "http://" + ep.Addr().String()
	status := func(method, path string) (int, string, http.Header) {
		req, err := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader("x"))
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b), resp.Header
	}
	code, body, _ := status(http.MethodGet, "/")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "<td>broker-0</td>")
	code, body, h := status(http.MethodHead, "/")
	require.Equal(t, http.StatusOK, code)
	require.Empty(t, body)
	require.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		code, _, h := status(m, "/")
		require.Equal(t, http.StatusMethodNotAllowed, code, m)
		require.Equal(t, "GET, HEAD", h.Get("Allow"), m)
	}
	code, _, _ = status(http.MethodGet, "/index.html")
	require.Equal(t, http.StatusNotFound, code)
	code, body, _ = status(http.MethodGet, "/healthz")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ok\n", body)
	code, _, _ = status(http.MethodGet, "/metrics")
	require.Equal(t, http.StatusOK, code)
	code, _, _ = status(http.MethodPost, "/metrics")
	require.Equal(t, http.StatusMethodNotAllowed, code)
}
