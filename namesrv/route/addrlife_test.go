package route

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// draw is where an address-life world takes its choices: a seeded PCG in
// the property test, the fuzzer's bytes in the fuzz target.
type draw interface {
	IntN(n int) int
}

// addrWorld drives broker addresses through registrations under changing
// names, ids and clusters, connection closes, registrations arriving on a
// connection already closed, expiries, heartbeats, explicit
// unregistrations (some of a live entry, then its connection's close),
// and queued unregistrations applied in any order and batching, on a
// Manager without its worker. It checks that every address a broker group
// lists has a live entry or an open connection that registered it, and at
// the end that closing every connection
// and expiring what was registered after its close leaves no address.
type addrWorld struct {
	t     *testing.T
	h     *harness
	d     draw
	open  map[string]*fakeChan // address -> its open connection
	all   []*fakeChan          // every connection, in the order opened
	late  map[*fakeChan]bool   // closed connections that carried a registration after their close
	conns int
	ops   []string
}

const (
	lifeAddrs    = 3
	lifeNames    = 4
	lifeClusters = 2
)

func newAddrWorld(t *testing.T, d draw) *addrWorld {
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	return &addrWorld{t: t, h: h, d: d, open: map[string]*fakeChan{}, late: map[*fakeChan]bool{}}
}

func (w *addrWorld) addr() string    { return "10.0.0." + strconv.Itoa(1+w.d.IntN(lifeAddrs)) + ":10911" }
func (w *addrWorld) name() string    { return "n" + strconv.Itoa(w.d.IntN(lifeNames)) }
func (w *addrWorld) cluster() string { return "c" + strconv.Itoa(1+w.d.IntN(lifeClusters)) }

// conn returns the address's open connection, opening one when none is.
func (w *addrWorld) conn(addr string) *fakeChan {
	if c := w.open[addr]; c != nil {
		return c
	}
	w.conns++
	c := newChan(addr + "#" + strconv.Itoa(w.conns))
	w.open[addr] = c
	w.all = append(w.all, c)
	return c
}

// closedConn returns one of the address's closed connections, or nil.
func (w *addrWorld) closedConn(addr string) *fakeChan {
	var cs []*fakeChan
	for _, c := range w.all {
		if c.closed.Load() && strings.HasPrefix(c.name, addr+"#") {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	return cs[w.d.IntN(len(cs))]
}

func (w *addrWorld) registerBody() *wire.RegisterBody {
	var ts []string
	for range w.d.IntN(4) {
		ts = append(ts, "t"+strconv.Itoa(w.d.IntN(5)))
	}
	bd := body(int64(w.d.IntN(3)), ts...)
	bd.DataVersion.StateVersion = int64(w.d.IntN(2))
	if w.d.IntN(4) == 0 {
		bd.FilterServerList = []string{"f" + strconv.Itoa(w.d.IntN(2))}
	}
	return bd
}

func (w *addrWorld) register(late bool) string {
	addr := w.addr()
	var ch *fakeChan
	if late {
		if ch = w.closedConn(addr); ch == nil {
			return "no closed connection of " + addr
		}
		w.late[ch] = true
	} else {
		ch = w.conn(addr)
	}
	r := reg(w.cluster(), w.name(), addr, int64(w.d.IntN(3)), w.registerBody())
	r.Channel = ch
	r.EnableActingMaster = boolp(w.d.IntN(2) == 0)
	_, err := w.h.RegisterBroker(r)
	return fmt.Sprintf("register %s id %d at %s/%s on %s (%d topics, sv %d, late %v): %v", r.BrokerName, r.BrokerID,
		r.ClusterName, addr, ch.name, len(r.Body.TopicConfigs), r.Body.DataVersion.StateVersion, late, err)
}

func (w *addrWorld) close() string {
	addr := w.addr()
	c := w.open[addr]
	if c == nil {
		return "no open connection of " + addr
	}
	delete(w.open, addr)
	_ = c.Close()
	w.h.OnChannelClose(c)
	return "close " + c.name
}

func (w *addrWorld) unregister() string {
	r := wire.UnregisterRequest{ClusterName: w.cluster(), BrokerAddr: w.addr(), BrokerName: w.name(), BrokerID: int64(w.d.IntN(3))}
	w.h.Unregister(r)
	return fmt.Sprintf("queue unregister %s id %d at %s/%s", r.BrokerName, r.BrokerID, r.ClusterName, r.BrokerAddr)
}

// unregisterLive queues the UNREGISTER_BROKER a broker sends for one of
// its live entries (it arrives on any connection: the request names no
// connection), applies it, and sometimes closes the address's connection
// right after.
func (w *addrWorld) unregisterLive() string {
	keys := w.liveKeys()
	if len(keys) == 0 {
		return "no live entry to unregister"
	}
	k := keys[w.d.IntN(len(keys))]
	w.h.live.mu.Lock()
	e := w.h.live.m[k]
	r := wire.UnregisterRequest{ClusterName: k.cluster, BrokerAddr: k.addr, BrokerName: e.name, BrokerID: e.id}
	w.h.live.mu.Unlock()
	w.h.Unregister(r)
	out := fmt.Sprintf("unregister live %s id %d at %s/%s, %s", r.BrokerName, r.BrokerID, k.cluster, k.addr, w.apply(1<<30))
	if c := w.open[k.addr]; c != nil && w.d.IntN(2) == 0 {
		delete(w.open, k.addr)
		_ = c.Close()
		w.h.OnChannelClose(c)
		out += ", close " + c.name
	}
	return out
}

func (w *addrWorld) expire() string {
	w.h.clock.Advance(DefaultBrokerTimeout + time.Second)
	for _, k := range w.liveKeys() {
		if w.d.IntN(2) == 0 {
			w.h.Heartbeat(k.cluster, k.addr)
		}
	}
	n := w.h.ScanExpired(w.h.clock.Mono())
	w.closedByServer()
	return fmt.Sprintf("expire %d", n)
}

// closedByServer runs the close handling of the open connections the
// expiry scan closed, as the server's connection close does.
func (w *addrWorld) closedByServer() {
	for _, c := range w.all {
		if c.closed.Load() && w.open[addrOf(c)] == c {
			delete(w.open, addrOf(c))
			w.h.OnChannelClose(c)
		}
	}
}

func addrOf(c *fakeChan) string { return c.name[:strings.IndexByte(c.name, '#')] }

// liveKeys lists the live entries in a fixed order.
func (w *addrWorld) liveKeys() []addrKey {
	w.h.live.mu.Lock()
	defer w.h.live.mu.Unlock()
	keys := make([]addrKey, 0, len(w.h.live.m))
	for k := range w.h.live.m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b addrKey) int { return strings.Compare(a.cluster+"/"+a.addr, b.cluster+"/"+b.addr) })
	return keys
}

// apply takes up to n queued unregistrations off the queue and applies
// them shuffled, in batches of random sizes.
func (w *addrWorld) apply(n int) string {
	var rs []unregReq
	for len(rs) < n {
		select {
		case r := <-w.h.unreg.ch:
			rs = append(rs, r)
			continue
		default:
		}
		break
	}
	for i := len(rs) - 1; i > 0; i-- {
		j := w.d.IntN(i + 1)
		rs[i], rs[j] = rs[j], rs[i]
	}
	batches := 0
	for rest := rs; len(rest) > 0; batches++ {
		k := 1 + w.d.IntN(len(rest))
		w.h.applyUnregister(rest[:k])
		rest = rest[k:]
	}
	return fmt.Sprintf("apply %d queued in %d batches", len(rs), batches)
}

func (w *addrWorld) step() string {
	switch w.d.IntN(13) {
	case 0, 1, 2, 3:
		return w.register(false)
	case 12:
		return w.unregisterLive()
	case 4:
		return w.register(true)
	case 5, 6:
		return w.close()
	case 7:
		return w.unregister()
	case 8:
		return w.expire()
	case 9, 10:
		return w.apply(1 + w.d.IntN(4))
	default:
		on := w.d.IntN(2) == 0
		w.h.set(Settings{DeleteTopicWithBrokerRegistration: w.d.IntN(2) == 0, NotifyMinBrokerIDChanged: on})
		return fmt.Sprintf("settings notify %v", on)
	}
}

// run plays steps, checking after each, then closes every connection,
// applies what is queued, expires what was registered on a connection
// after its close, and checks that nothing lists an address any more.
func (w *addrWorld) run(more func(step int) bool, tag string) {
	for i := 0; more(i); i++ {
		w.ops = append(w.ops, w.step())
		w.check(fmt.Sprintf("%s step %d", tag, i))
	}
	for _, c := range w.all {
		if !c.closed.Load() {
			_ = c.Close()
			w.h.OnChannelClose(c)
		}
	}
	clear(w.open)
	w.ops = append(w.ops, "close every connection", w.apply(1<<30))
	w.check(tag + " after every connection closed")
	w.h.live.mu.Lock()
	for k, e := range w.h.live.m {
		require.True(w.t, w.late[e.ch.(*fakeChan)], "%s: live entry %v outlived the close of its connection %s; ops:\n%s",
			tag, k, e.ch.(*fakeChan).name, strings.Join(w.ops, "\n"))
	}
	w.h.live.mu.Unlock()
	w.h.clock.Advance(DefaultBrokerTimeout + time.Second)
	w.ops = append(w.ops, fmt.Sprintf("expire %d", w.h.ScanExpired(w.h.clock.Mono())), w.apply(1<<30))
	w.check(tag + " after the last expiry")
	w.checkEmpty(tag)
}

// check verifies that every address a group lists has a live entry or an
// open connection, that the Manager counts the open connections the world
// has, and that the snapshots, indexes and counts match the tables (checkModel).
func (w *addrWorld) check(msg string) {
	w.t.Helper()
	m := w.h.Manager
	m.mu.RLock()
	live, lives, uses := map[string]bool{}, map[string]int{}, map[string]int{}
	for k := range m.live.m {
		live[k.addr] = true
		lives[k.addr]++
	}
	for _, b := range m.brokers {
		for _, a := range b.addrs {
			uses[a]++
		}
	}
	conns := map[string]int{}
	for a := range w.open {
		conns[a] = 1
	}
	require.Equal(w.t, lives, m.live.byAddr, "%s: live entries by address", msg)
	require.Equal(w.t, uses, m.addrUses, "%s: group addresses by address", msg)
	require.Equal(w.t, conns, m.live.addrConns, "%s: open connections by address", msg)
	for name, b := range m.brokers {
		require.ElementsMatch(w.t, slices.Collect(maps.Keys(b.addrs)), b.order, "%s: ids of group %s", msg, name)
		for id, a := range b.addrs {
			if !live[a] && conns[a] == 0 {
				m.mu.RUnlock()
				w.t.Fatalf("%s: group %s lists %d:%s, an address without a live entry or open connection; ops:\n%s",
					msg, name, id, a, strings.Join(w.ops, "\n"))
			}
		}
	}
	m.mu.RUnlock()
	checkModel(w.t, m, nil, msg)
}

// checkEmpty verifies that no live entry, filter server or group address
// is left and that no published route names an address. Groups without
// addresses may stay (a refused first registration leaves one, as in
// Java).
func (w *addrWorld) checkEmpty(tag string) {
	w.t.Helper()
	m := w.h.Manager
	m.mu.RLock()
	defer m.mu.RUnlock()
	ops := strings.Join(w.ops, "\n")
	require.Empty(w.t, m.live.m, "%s: live entries left; ops:\n%s", tag, ops)
	require.Empty(w.t, m.filters, "%s: filter servers left; ops:\n%s", tag, ops)
	for name, b := range m.brokers {
		require.Empty(w.t, b.addrs, "%s: group %s keeps addresses; ops:\n%s", tag, name, ops)
	}
	for _, e := range m.pub.rows() {
		if s := e.snap.Load(); s != nil {
			for _, bd := range s.Route.BrokerDatas {
				require.Empty(w.t, bd.BrokerAddrs, "%s: route of %s names %v; ops:\n%s", tag, e.name, bd.BrokerAddrs, ops)
			}
		}
	}
}

// TestPropertyClosedAddressesLeaveNoGroup plays random sequences of
// registrations (renames, id and cluster changes), closes, expiries,
// heartbeats and explicit unregistrations, with the queued
// unregistrations applied in any order, and checks after every step that
// no group lists an address without a live entry, and at the end, every
// connection closed, that no address is left anywhere. Replay with RMQ_SEED.
func TestPropertyClosedAddressesLeaveNoGroup(t *testing.T) {
	seed := attackSeed(t)
	runs := 60
	if testing.Short() {
		runs = 10
	}
	for i := range runs {
		s := seed + uint64(i)
		w := newAddrWorld(t, rand.New(rand.NewPCG(s, 24)))
		w.run(func(i int) bool { return i < 150 }, fmt.Sprintf("seed %d (RMQ_SEED=%d, run %d)", s, seed, i))
	}
}

// byteDraw takes choices from fuzzer bytes; it gives 0 once they run out.
type byteDraw struct{ b []byte }

func (d *byteDraw) IntN(n int) int {
	if len(d.b) == 0 {
		return 0
	}
	v := int(d.b[0])
	d.b = d.b[1:]
	return v % n
}

// FuzzClosedAddressesLeaveNoGroup plays the sequences of
// TestPropertyClosedAddressesLeaveNoGroup chosen by the fuzzer's bytes
// (at most 300 steps) with the same checks.
func FuzzClosedAddressesLeaveNoGroup(f *testing.F) {
	// A rename before the old connection's unregistration is applied:
	// register n0 at address 1 on connection 1, close it, register n1 at
	// address 1 on connection 2, apply, close connection 2.
	f.Add([]byte{0, 0, 0, 0, 0, 2, 0, 1, 1, 0, 1, 0, 5, 0, 0, 0, 0, 1, 0, 2, 0, 1, 1, 0, 1, 0, 9, 0, 0, 5, 0})
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &byteDraw{b: data}
		w := newAddrWorld(t, d)
		w.run(func(i int) bool { return i < 300 && len(d.b) > 0 }, fmt.Sprintf("input %x", data))
	})
}
