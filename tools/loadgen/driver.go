package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// Bounds of the lookup driver.
const (
	ioTimeout  = 10 * time.Second // one round trip
	maxSamples = 50_000_000       // per phase, all connections (400 MB)
)

// The request header as rocketmq-client-go writes it (jsoniter, struct
// order, language GO, version 317), split around the opaque and the topic.
const (
	reqHeadA = `{"code":105,"language":"GO","version":317,"opaque":`
	reqHeadB = `,"flag":0,"remark":"","extFields":{"topic":"`
	reqHeadC = `"}}`
)

// lookupConn is one closed-loop connection: it writes a request, reads the
// response, checks it and repeats. It bypasses remoting.Client so that the
// load generator spends as little CPU as possible on the shared cores.
type lookupConn struct {
	nc     net.Conn
	r      *bufio.Reader
	wbuf   []byte
	rbuf   []byte
	rng    *rand.Rand
	opaque int32
	lat    []int64 // nanoseconds, one per completed lookup
}

// dialFunc opens the transport of a lookup connection (plain TCP by
// default; the tls workload adds a handshake).
type dialFunc func(addr string) (net.Conn, error)

// dialTCP is the plain dialFunc.
func dialTCP(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, ioTimeout) }

// dialLookup opens a lookup connection to addr; seed picks its topics.
func dialLookup(addr string, seed uint64) (*lookupConn, error) {
	return dialLookupWith(dialTCP, addr, seed)
}

// dialLookupWith is dialLookup over dial.
func dialLookupWith(dial dialFunc, addr string, seed uint64) (*lookupConn, error) {
	nc, err := dial(addr)
	if err != nil {
		return nil, err
	}
	return &lookupConn{
		nc: nc, r: bufio.NewReaderSize(nc, 64<<10),
		wbuf: make([]byte, 0, 256), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}, nil
}

// request encodes a GET_ROUTEINFO_BY_TOPIC frame for topic into c.wbuf.
func (c *lookupConn) request(topic string) []byte {
	c.opaque++
	b := append(c.wbuf[:0], 0, 0, 0, 0, 0, 0, 0, 0)
	b = append(b, reqHeadA...)
	b = strconv.AppendInt(b, int64(c.opaque), 10)
	b = append(b, reqHeadB...)
	b = append(b, topic...)
	b = append(b, reqHeadC...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	binary.BigEndian.PutUint32(b[4:], uint32(len(b)-8)) // JSON type, header length
	c.wbuf = b
	return b
}

// roundTrip sends one lookup of topic and checks the answer: a JSON header
// starting with code 0, the request's opaque, and a body.
func (c *lookupConn) roundTrip(topic string) error {
	frame, err := c.exchange(topic)
	if err != nil {
		return err
	}
	return checkResponse(frame, c.opaque)
}

// exchange sends one lookup of topic and returns the response frame
// (length field stripped), valid until the next exchange.
func (c *lookupConn) exchange(topic string) ([]byte, error) {
	_ = c.nc.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := c.nc.Write(c.request(topic)); err != nil {
		return nil, err
	}
	frame, err := remoting.ReadFrame(c.r, 0, c.rbuf)
	if err != nil {
		return nil, err
	}
	c.rbuf = frame[:0]
	return frame, nil
}

// checkResponse validates a response frame (length field stripped) cheaply.
func checkResponse(frame []byte, opaque int32) error {
	if len(frame) < 4 {
		return fmt.Errorf("short frame (%d bytes)", len(frame))
	}
	hl := int(binary.BigEndian.Uint32(frame) & 0xFFFFFF)
	if hl > len(frame)-4 || frame[0] != 0 {
		return fmt.Errorf("not a JSON header (word %x)", frame[:4])
	}
	header := frame[4 : 4+hl]
	if !bytes.HasPrefix(header, []byte(`{"code":0,`)) {
		return fmt.Errorf("lookup failed: %.200s", header)
	}
	var want [32]byte
	w := strconv.AppendInt(append(want[:0], `"opaque":`...), int64(opaque), 10)
	if i := bytes.Index(header, w); i < 0 || (header[i+len(w)] != ',' && header[i+len(w)] != '}') {
		return fmt.Errorf("opaque %d not in %.200s", opaque, header)
	}
	if len(frame) == 4+hl {
		return fmt.Errorf("empty route body")
	}
	return nil
}

// loop runs lookups of random topics until deadline: back to back, or
// with pace > 0 one every pace from start (late ones go at once, without
// catching up). With record it keeps each latency, measured from the send.
func (c *lookupConn) loop(topics []string, start, deadline time.Time, pace time.Duration, record bool, g *mixGate, budget *atomic.Int64) error {
	next := start
	for now := time.Now(); now.Before(deadline); now = time.Now() {
		if pace > 0 {
			if now.Before(next) {
				time.Sleep(next.Sub(now))
			}
			next = next.Add(pace)
		}
		topic := topics[c.rng.IntN(len(topics))]
		t0 := time.Now()
		if err := c.roundTrip(topic); err != nil {
			return fmt.Errorf("lookup %s: %w", topic, err)
		}
		d := time.Since(t0)
		g.lookups.Add(1)
		if record && budget.Add(-1) >= 0 {
			c.lat = append(c.lat, int64(d))
		}
	}
	return nil
}

// gatePause is how long the writer waits when it is ahead of its share.
const gatePause = 50 * time.Microsecond

// mixGate counts operations so that a writer can keep re-registrations at
// pct% of all operations.
type mixGate struct {
	pct     int64
	lookups atomic.Int64 // completed lookups
	regs    atomic.Int64 // completed re-registrations
}

// writeMayGo reports whether one more write stays within its share.
func (g *mixGate) writeMayGo() bool {
	return g.regs.Load()*(100-g.pct) <= g.lookups.Load()*g.pct
}

// lookupLoad is a set of closed-loop connections to one server.
type lookupLoad struct {
	conns  []*lookupConn
	topics []string
	gate   mixGate
}

// openLoad dials n connections to addr.
func openLoad(addr string, n int, topics []string, seed int64) (*lookupLoad, error) {
	return openLoadWith(dialTCP, addr, n, topics, seed)
}

// openLoadWith is openLoad over dial.
func openLoadWith(dial dialFunc, addr string, n int, topics []string, seed int64) (*lookupLoad, error) {
	l := &lookupLoad{topics: topics}
	for i := 0; i < n; i++ {
		c, err := dialLookupWith(dial, addr, uint64(seed)+uint64(i)*7919)
		if err != nil {
			l.close()
			return nil, err
		}
		l.conns = append(l.conns, c)
	}
	return l, nil
}

// close closes every connection.
func (l *lookupLoad) close() {
	for _, c := range l.conns {
		_ = c.nc.Close()
	}
}

// run drives all connections for d, closed loop or with rate > 0 at that
// many lookups per second in all (spread evenly over the connections);
// with record it returns every latency and the wall time of the phase.
func (l *lookupLoad) run(d time.Duration, rate float64, record bool) ([]int64, time.Duration, error) {
	var wg sync.WaitGroup
	var budget atomic.Int64
	budget.Store(maxSamples)
	errs := make([]error, len(l.conns))
	start := time.Now()
	deadline := start.Add(d)
	var pace time.Duration
	if rate > 0 {
		pace = time.Duration(float64(len(l.conns)) / rate * float64(time.Second))
	}
	for i, c := range l.conns {
		c.lat = c.lat[:0]
		first := start.Add(pace * time.Duration(i) / time.Duration(len(l.conns)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.loop(l.topics, first, deadline, pace, record, &l.gate, &budget)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	var all []int64
	for i, c := range l.conns {
		if errs[i] != nil {
			return nil, 0, errs[i]
		}
		all = append(all, c.lat...)
	}
	return all, wall, nil
}

// sweep looks up every topic once, spread over the connections.
func (l *lookupLoad) sweep() error {
	var wg sync.WaitGroup
	errs := make([]error, len(l.conns))
	for i, c := range l.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := i; j < len(l.topics) && errs[i] == nil; j += len(l.conns) {
				errs[i] = c.roundTrip(l.topics[j])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
