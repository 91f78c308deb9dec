package namesrv

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Attacks on REGISTER_BROKER answered on the connection's reader
// (brokerProcessor.registerOn): what reaches it before the lane, header fields
// outside the digest, ordering across connections, hostile headers.

// TestAttackReaderIdenticalNeedsACL: with aclEnable, a stranger re-sending
// a registered broker's request byte for byte, unsigned or signed with a
// wrong secret, is refused (16) before the reader-side path: it is not
// counted as a registration and takes nothing from the broker.
func TestAttackReaderIdenticalNeedsACL(t *testing.T) {
	path := writeACLFile(t, "accounts: [{accessKey: broker01, secretKey: brokerSecret, admin: true}]\n")
	srv := startServer(t, func(c *config.NamesrvConfig) { c.AclEnable, c.AclConfigPath = true, path })
	stats := srv.Routes().Stats
	bd := registerBody(t, 20, 1)
	signed := javaRegister(remoting.RegisterBroker, bd)
	acl.Sign(signed, "broker01", "brokerSecret", "")
	broker := dial(t, srv)
	require.Equal(t, remoting.Success, invoke(t, broker, signed).Code)
	require.Equal(t, uint64(1), stats().Registrations)

	stranger := dial(t, srv)
	resp := invoke(t, stranger, javaRegister(remoting.RegisterBroker, bd))
	require.Equal(t, remoting.NoPermission, resp.Code, "unsigned: %s", resp.Remark)
	forged := javaRegister(remoting.RegisterBroker, bd)
	acl.Sign(forged, "broker01", "guessed", "")
	resp = invoke(t, stranger, forged)
	require.Equal(t, remoting.NoPermission, resp.Code, "wrong secret: %s", resp.Remark)
	require.Equal(t, uint64(1), stats().Registrations, "refused requests reached the handler")
	require.Zero(t, stats().UnchangedRegistrations)

	again := remoting.NewRequest(remoting.RegisterBroker, maps.Clone(javaRegister(remoting.RegisterBroker, bd).ExtFields), bd)
	acl.Sign(again, "broker01", "brokerSecret", "")
	require.Equal(t, remoting.Success, invoke(t, broker, again).Code)
	require.Equal(t, uint64(1), stats().UnchangedRegistrations, "the control: the broker's own repeat is unchanged")
}

// queuesOf returns the write queue count and perm of broker-l's QueueData
// of topic, or -1, -1 when the topic has no route.
func queuesOf(t *testing.T, srv *Server, topic string) (int32, int32) {
	snap := srv.Routes().Lookup(topic)
	if snap == nil {
		return -1, -1
	}
	for _, q := range snap.Route.QueueDatas {
		if q.BrokerName == "broker-l" {
			return q.WriteQueueNums, q.Perm
		}
	}
	return -1, -1
}

// TestReaderIdenticalAfterWipe: WIPE_WRITE_PERM_OF_BROKER and
// ADD_WRITE_PERM_OF_BROKER change the route without a registration. An
// identical re-registration then keeps what the admin set, as Java's
// registerBroker does (same DataVersion and the group already has the
// topic: isTopicConfigChanged is false, the topic is not re-applied);
// a new DataVersion re-applies the body's perm.
func TestReaderIdenticalAfterWipe(t *testing.T) {
	srv := startServer(t, nil)
	stats := srv.Routes().Stats
	c := dial(t, srv)
	bd := registerBodyQ(t, 10, 1, 8)
	require.Equal(t, remoting.Success, invoke(t, c, javaRegister(remoting.RegisterBroker, bd)).Code)
	admin := func(code int32) {
		resp := invoke(t, c, remoting.NewRequest(code, map[string]string{"brokerName": "broker-l"}, nil))
		require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	}
	step := func(name string, bd []byte, wantPerm int32, unchanged uint64) {
		require.Equal(t, remoting.Success, invoke(t, c, javaRegister(remoting.RegisterBroker, bd)).Code, name)
		_, perm := queuesOf(t, srv, "topic-00003")
		require.Equal(t, wantPerm, perm, name)
		require.Equal(t, unchanged, stats().UnchangedRegistrations, name)
	}
	admin(remoting.WipeWritePermOfBroker)
	step("identical after wipe", bd, 4, 1)
	admin(remoting.AddWritePermOfBroker)
	step("identical after add", bd, 6, 2)
	admin(remoting.WipeWritePermOfBroker)
	step("new DataVersion after wipe", registerBodyQ(t, 10, 2, 8), 6, 2)
}

// TestReaderConcurrentMemoMatchesTables: registrations of two bodies
// (the same topics, other write queue counts and DataVersions) and
// unregistrations of one broker from several connections at once, some
// connections closed and redialled meanwhile, and expiry scans that find
// every entry expired (closing its channel) running alongside, under
// -race. Afterwards the body memo must describe what the tables hold:
// registering each body in turn, the first one answered without decoding
// included, leaves that body's queues. RMQ_SEED replays the choice of
// operations.
func TestReaderConcurrentMemoMatchesTables(t *testing.T) {
	srv := startServer(t, nil)
	bodies := [2][]byte{registerBodyQ(t, 12, 1, 8), registerBodyQ(t, 12, 2, 9)}
	rng := seededRand(t)
	const workers, steps = 4, 150
	plans := make([][]int, workers)
	for w := range plans {
		for range steps {
			plans[w] = append(plans[w], rng.IntN(20))
		}
	}
	stop := make(chan struct{})
	scanned := make(chan int)
	go func() { scanned <- scanUntil(srv, stop) }()
	var wg sync.WaitGroup
	answered := make([]int, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answered[w] = runPlan(srv, plans[w], bodies)
		}()
	}
	wg.Wait()
	close(stop)
	t.Logf("expiry scans %d, answers %v", <-scanned, answered)
	srv.Routes().WaitIdle()
	c := dial(t, srv)
	for i, k := range []int{0, 0, 1, 1, 0, 1} {
		require.Equal(t, remoting.Success, invoke(t, c, javaRegister(remoting.RegisterBroker, bodies[k])).Code)
		for tp := range 12 {
			w, _ := queuesOf(t, srv, fmt.Sprintf("topic-%05d", tp))
			require.Equal(t, int32(8+k), w, "step %d (body %d), topic %d", i, k, tp)
		}
	}
	t.Logf("unchanged %d of %d registrations", srv.Routes().Stats().UnchangedRegistrations,
		srv.Routes().Stats().Registrations)
}

// scanUntil runs expiry scans that find every live entry expired (an
// hour ahead) now and then until stop, and returns how many ran.
func scanUntil(srv *Server, stop chan struct{}) int {
	n := 0
	for {
		select {
		case <-stop:
			return n
		case <-time.After(2 * time.Millisecond):
			srv.Routes().ScanExpired(monotime.Now().Add(time.Hour))
			n++
		}
	}
}

// runPlan sends a worker's operations (0-7 body 0, 8-15 body 1, 16-17
// UNREGISTER_BROKER, 18-19 a new connection), redialling after an error
// (an expiry scan closes the broker's channel), and returns how many
// requests were answered. It runs off the test goroutine: no require.
func runPlan(srv *Server, plan []int, bodies [2][]byte) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var c *remoting.Client
	defer func() {
		if c != nil {
			_ = c.Close()
		}
	}()
	answered := 0
	for _, op := range plan {
		if c == nil || op >= 18 {
			if c != nil {
				_ = c.Close()
			}
			var err error
			if c, err = remoting.Dial(ctx, srv.Addr().String(), remoting.ClientOptions{}); err != nil {
				return answered
			}
			continue
		}
		req := remoting.NewRequest(remoting.UnregisterBroker, map[string]string{"brokerAddr": "10.3.0.1:10911",
			"brokerId": "0", "brokerName": "broker-l", "clusterName": "LCluster"}, nil)
		if op < 16 {
			req = javaRegister(remoting.RegisterBroker, bodies[op/8])
		}
		if _, err := c.Invoke(ctx, req); err != nil {
			_ = c.Close()
			c = nil
			continue
		}
		answered++
	}
	return answered
}

// readerProbe is a REGISTER_BROKER handler as the server binds it, with a
// lane of its own that records panics.
type readerProbe struct {
	srv      *Server
	h        remoting.HandlerFunc
	mu       sync.Mutex
	panicked []any
}

// newReaderProbe starts a server for the probe; with quiet its logs are
// dropped (a fuzz target may not log through the fuzz's own T).
func newReaderProbe(t testing.TB, quiet bool) *readerProbe {
	var srv *Server
	if quiet {
		cfg := testConfig(t)
		s, err := New(cfg, hclog.NewNullLogger())
		require.NoError(t, err)
		require.NoError(t, s.Start())
		t.Cleanup(func() { require.NoError(t, s.Shutdown(context.Background())) })
		srv = s
	} else {
		srv = startServer(t, nil)
	}
	p := &readerProbe{srv: srv}
	l := newLane(0, func(v any, _ []byte) { p.mu.Lock(); p.panicked = append(p.panicked, v); p.mu.Unlock() })
	t.Cleanup(l.close)
	bp := &brokerProcessor{routes: srv.routes, kv: srv.kv, cfg: srv.cfg}
	p.h = bp.registerOn(l)
	return p
}

// hostileFields are RegisterBrokerRequestHeader values that decode,
// almost decode or mean something else than the broker's own.
var hostileFields = map[string][]string{
	"brokerId":               {"0", "00", "+0", "-0", "1", "-1", "9223372036854775807", "-9223372036854775808", "0x0", " 0", ""},
	"heartbeatTimeoutMillis": {"30000", "", "-1", "0", "9223372036854775807", "1e3"},
	"enableActingMaster":     {"false", "true", "TRUE", "", "yes"},
	"compressed":             {"false", "False", "true", "", "1"},
	"bodyCrc32":              {"", "0", "-0", "+0", "4294967295", "-1", "2147483648", "x"},
	"__ZONE_NAME":            {"", "z"},
	"brokerName":             {"broker-l", "broker-L", "", "broker-l\x00"},
	"haServerAddr":           {"10.3.0.1:10912", ""},
}

// check sends the broker's request with the given header edits, version
// and body and requires the answer to be the full path's: success only
// when the full decode accepts the request, and never a panic.
func (p *readerProbe) check(t *testing.T, edits map[string]string, version int32, bd []byte) {
	req := javaRegister(remoting.RegisterBroker, bd)
	req.Version = version
	for k, v := range edits {
		if k == "bodyCrc32" && v == "$" {
			v = strconv.FormatInt(int64(wire.CRC32(bd)), 10)
		}
		if v == "\x7f" {
			delete(req.ExtFields, k)
			continue
		}
		req.ExtFields[k] = v
	}
	_, decodeErr := decodeRegister(req)
	resp, err := p.h(nil, req)
	require.NoError(t, err, "%v v%d", edits, version)
	require.NotNil(t, resp)
	if decodeErr != nil {
		require.NotEqual(t, remoting.Success, resp.Code, "%v v%d: answered %d though the full decode refuses: %v",
			edits, version, resp.Code, decodeErr)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Empty(t, p.panicked, "%v v%d", edits, version)
}

// TestAttackReaderHostileHeaders: after the broker's registration (so its
// memo exists), one header field at a time is replaced by a hostile value
// or removed, under several request versions and with the body intact,
// truncated or flipped; then the broker's own request again. Every answer
// is the full path's (FuzzAttackReaderHeaders explores further).
func TestAttackReaderHostileHeaders(t *testing.T) {
	p := newReaderProbe(t, false)
	bd := registerBody(t, 8, 1)
	flipped := append([]byte(nil), bd...)
	flipped[len(flipped)/2] ^= 1
	own := map[string]string{"bodyCrc32": "$"}
	p.check(t, own, remoting.CurrentVersion, bd)
	for field, values := range hostileFields {
		for _, v := range append(values, "\x7f") {
			for _, version := range []int32{remoting.CurrentVersion, 0, 36, 37, -1} {
				for _, b := range [][]byte{bd, bd[:len(bd)-1], flipped, nil} {
					p.check(t, map[string]string{"bodyCrc32": "$", field: v}, version, b)
					p.check(t, own, remoting.CurrentVersion, bd)
				}
			}
		}
	}
	require.NotZero(t, p.srv.Routes().Stats().UnchangedRegistrations)
}

// FuzzAttackReaderHeaders is TestAttackReaderHostileHeaders with fuzzed
// field values, version and body edit; the broker's own request precedes
// each input so that its memo is current.
func FuzzAttackReaderHeaders(f *testing.F) {
	f.Add("0", "30000", "false", "false", "$", "", int32(remoting.CurrentVersion), uint16(0), byte(0))
	f.Add("1", "-1", "true", "true", "0", "z", int32(36), uint16(7), byte(1))
	f.Add("00", "", "TRUE", "False", "", "", int32(37), uint16(3), byte(0))
	p := newReaderProbe(f, true)
	bd := registerBody(f, 8, 1)
	f.Fuzz(func(t *testing.T, id, hb, eam, compressed, crc, zone string, version int32, at uint16, flip byte) {
		p.check(t, map[string]string{"bodyCrc32": "$"}, remoting.CurrentVersion, bd)
		b := append([]byte(nil), bd...)
		b[int(at)%len(b)] ^= flip
		p.check(t, map[string]string{"brokerId": id, "heartbeatTimeoutMillis": hb, "enableActingMaster": eam,
			"compressed": compressed, "bodyCrc32": crc, "__ZONE_NAME": zone}, version, b)
	})
}
