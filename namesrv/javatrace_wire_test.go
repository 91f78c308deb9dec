package namesrv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Request versions of the replay: a 5.x broker, and a client before and
// from V4_9_4 (the two flavours of GET_ROUTEINFO_BY_TOPIC).
const (
	traceBrokerVersion   int32 = 453
	traceDefaultFlavour  int32 = versionStandardJSON - 1
	traceStandardFlavour int32 = versionStandardJSON
)

// traceDriver replays a trace's operations over real remoting connections
// to a NameServer whose unregistration worker is stopped, so that a closed
// connection's unregistrations stay queued until the driver applies them
// (WaitIdle on the caller).
type traceDriver struct {
	t      *testing.T
	srv    *Server
	query  *traceConn            // every query of the answers
	conns  map[string]*traceConn // broker connections by name or cluster+addr
	closed chan string           // client addresses of connections the server saw closed
	mu     sync.Mutex
	notes  []string // 905 notifications sent since the last step
	// orphans are the (cluster, addr) pairs whose connection closed while
	// no group of the cluster listed the address: Java keeps their live
	// and filter-server entries, this NameServer drops them (orphanKey).
	orphans map[string]bool
	// versions are the DataVersion (as the body spells it) of each pair's
	// last accepted registration: an orphaned live entry keeps it in Java.
	versions map[string]string
	// pairs and names are the cluster and address, and the broker name of
	// the last accepted registration, of each broker connection.
	pairs map[string][2]string
	names map[string]string
	// diverged names the deliberate difference after which Java's tables
	// and ours differ for the rest of the trace (see divergedTables), or "".
	diverged string
	// registered are the (cluster, address) pairs registered so far, dead
	// the addresses one of whose pairs was without a live entry after a
	// step (noteDead).
	registered map[[2]string]bool
	dead       map[string]bool
	// connAddrs are the addresses registered over each open broker
	// connection (by connKey), dropped at its close.
	connAddrs map[string]map[string]bool
}

// traceConn is one client connection with its reader.
type traceConn struct {
	nc     net.Conn
	r      *bufio.Reader
	opaque int32
}

func newTraceDriver(t *testing.T) *traceDriver {
	d := &traceDriver{t: t, conns: map[string]*traceConn{}, closed: make(chan string, 64), orphans: map[string]bool{},
		versions: map[string]string{}, pairs: map[string][2]string{}, names: map[string]string{},
		registered: map[[2]string]bool{}, dead: map[string]bool{}, connAddrs: map[string]map[string]bool{}}
	cfg := testConfig(t)
	// Warnings and errors only: a replay logs tens of thousands of lines.
	log := testLogger(t)
	log.SetLevel(hclog.Warn)
	srv, err := New(cfg, log)
	require.NoError(t, err)
	srv.sendNotify = d.recordNotify
	srv.rs.OnConnClose(func(c *remoting.Conn) { d.closed <- c.RemoteAddr() })
	require.NoError(t, srv.Start())
	srv.Routes().Stop() // queued unregistrations wait for WaitIdle
	d.srv = srv
	d.query = d.dial()
	t.Cleanup(func() {
		for _, c := range d.conns {
			_ = c.nc.Close()
		}
		_ = d.query.nc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
	})
	return d
}

func (d *traceDriver) dial() *traceConn {
	nc, err := net.Dial("tcp", d.srv.Addr().String())
	require.NoError(d.t, err)
	return &traceConn{nc: nc, r: bufio.NewReaderSize(nc, 64<<10)}
}

// recordNotify stands for the oneway 905 send: it notes the notification.
func (d *traceDriver) recordNotify(_ context.Context, addr string, req *remoting.Command) {
	f := func(k string) string {
		if v, ok := req.ExtFields[k]; ok {
			return v
		}
		return "null"
	}
	d.mu.Lock()
	d.notes = append(d.notes, fmt.Sprintf("%s:min=%s,minAddr=%s,offline=%s,ha=%s", addr,
		f("minBrokerId"), f("minBrokerAddr"), f("offlineBrokerAddr"), f("haBrokerAddr")))
	d.mu.Unlock()
}

// takeNotes returns the 905 line of the notifications sent, or "".
func (d *traceDriver) takeNotes() string {
	d.srv.notes.wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.notes) == 0 {
		return ""
	}
	slices.Sort(d.notes)
	line := "905 [" + strings.Join(d.notes, ", ") + "]"
	d.notes = d.notes[:0]
	return line
}

// roundTrip sends reqs on c in one write and returns their responses in
// request order.
func (d *traceDriver) roundTrip(c *traceConn, reqs ...*remoting.Command) []*remoting.Command {
	var buf []byte
	for _, r := range reqs {
		c.opaque++
		r.Opaque = c.opaque
		buf = remoting.EncodeFrame(buf, r)
	}
	require.NoError(d.t, c.nc.SetDeadline(time.Now().Add(10*time.Second)))
	_, err := c.nc.Write(buf)
	require.NoError(d.t, err)
	byOpaque := make(map[int32]*remoting.Command, len(reqs))
	for range reqs {
		frame, err := remoting.ReadFrame(c.r, 64<<20, nil)
		require.NoError(d.t, err)
		resp, err := remoting.DecodeFrame(frame)
		require.NoError(d.t, err)
		byOpaque[resp.Opaque] = resp
	}
	out := make([]*remoting.Command, len(reqs))
	for i, r := range reqs {
		out[i] = byOpaque[r.Opaque]
		require.NotNil(d.t, out[i], "no response to %s", r)
	}
	return out
}

// connKey names the connection of a registration: the named one, or the
// one of its cluster and address.
func connKey(op traceOp) string {
	if op.Conn != "" {
		return op.Conn
	}
	return op.Cluster + "\x00" + op.Addr
}

// brokerConn returns the connection of a registration.
func (d *traceDriver) brokerConn(op traceOp) *traceConn {
	key := connKey(op)
	d.pairs[key] = [2]string{op.Cluster, op.Addr}
	c := d.conns[key]
	if c == nil {
		c = d.dial()
		d.conns[key] = c
	}
	return c
}

// closeConn closes a broker connection and waits until the server has
// queued its unregistrations.
func (d *traceDriver) closeConn(key string) {
	c := d.conns[key]
	if c == nil {
		return
	}
	delete(d.conns, key)
	delete(d.connAddrs, key)
	local := c.nc.LocalAddr().String()
	require.NoError(d.t, c.nc.Close())
	deadline := time.After(10 * time.Second)
	for {
		select {
		case addr := <-d.closed:
			if addr == local {
				return
			}
		case <-deadline:
			d.t.Fatalf("server did not see %s close", local)
		}
	}
}

// step applies one operation and returns its "#N op result" line.
func (d *traceDriver) step(n int, op traceOp) string {
	var result string
	d.noteOrphanUse(op)
	switch op.Op {
	case "reg":
		result = d.register(op)
	case "unreg":
		d.send(remoting.UnregisterBroker, map[string]string{"clusterName": op.Cluster, "brokerAddr": op.Addr,
			"brokerName": op.Name, "brokerId": strconv.FormatInt(op.ID, 10)}, nil)
		d.srv.Routes().WaitIdle()
	case "close":
		d.trackOrphans(op, true)
		d.noteClose(op.Cluster + "\x00" + op.Addr)
		d.closeConn(op.Cluster + "\x00" + op.Addr)
		d.srv.Routes().WaitIdle()
	case "closeq":
		d.noteClose(op.Conn)
		d.closeConn(op.Conn)
	case "drain":
		d.srv.Routes().WaitIdle()
	case "wipe", "addperm":
		result = d.perm(op)
	case "deltopic":
		ext := map[string]string{"topic": op.Topic}
		if op.Cluster != "" {
			ext["clusterName"] = op.Cluster
		}
		d.send(remoting.DeleteTopicInNamesrv, ext, nil)
	case "regtopic":
		d.send(remoting.RegisterTopicInNamesrv, map[string]string{"topic": op.Topic}, bodyOf(op))
	case "settings":
		props := fmt.Sprintf("deleteTopicWithBrokerRegistration=%t\nsupportActingMaster=%t\nnotifyMinBrokerIdChanged=%t\n",
			op.Delete, op.Acting, op.Notify)
		resp := d.send(remoting.UpdateNamesrvConfig, nil, []byte(props))
		require.Equal(d.t, remoting.Success, resp.Code, resp.Remark)
	default:
		d.t.Fatalf("unknown operation %q", op.Op)
	}
	if op.Op != "close" {
		d.trackOrphans(op, false)
	}
	return fmt.Sprintf("#%d %s %s", n, op.Op, result)
}

// send makes one request on the query connection.
func (d *traceDriver) send(code int32, ext map[string]string, b []byte) *remoting.Command {
	return d.roundTrip(d.query, remoting.NewRequest(code, ext, b))[0]
}

func bodyOf(op traceOp) []byte {
	if op.Body == nil {
		return nil
	}
	return []byte(*op.Body)
}

// register sends a REGISTER_BROKER as a 5.x broker does.
func (d *traceDriver) register(op traceOp) string {
	b := bodyOf(op)
	ext := map[string]string{"clusterName": op.Cluster, "brokerAddr": op.Addr, "brokerName": op.Name,
		"brokerId": strconv.FormatInt(op.ID, 10), "compressed": "false",
		"bodyCrc32": strconv.FormatUint(uint64(wire.CRC32(b)), 10)}
	setPtr(ext, "haServerAddr", op.HA)
	setPtr(ext, "__ZONE_NAME", op.Zone)
	if op.EAM != nil {
		ext["enableActingMaster"] = strconv.FormatBool(*op.EAM)
	}
	if op.Timeout != nil {
		ext["heartbeatTimeoutMillis"] = strconv.FormatInt(*op.Timeout, 10)
	}
	req := remoting.NewRequest(remoting.RegisterBroker, ext, b)
	req.Version = traceBrokerVersion
	resp := d.roundTrip(d.brokerConn(op), req)[0]
	if resp.Code == remoting.Success {
		d.names[connKey(op)] = op.Name
		d.versions[orphanKey(op.Cluster, op.Addr)] = dataVersionOf(op)
	}
	if resp.Code != remoting.Success {
		if strings.HasPrefix(resp.Remark, "Failed to decode") {
			return fmt.Sprintf("code=%d decode", resp.Code)
		}
		return fmt.Sprintf("code=%d", resp.Code)
	}
	return fmt.Sprintf("code=0 ha=%s master=%s", extOrNull(resp, "haServerAddr"), extOrNull(resp, "masterAddr"))
}

func setPtr(ext map[string]string, k string, v *string) {
	if v != nil {
		ext[k] = *v
	}
}

func extOrNull(c *remoting.Command, k string) string {
	if v, ok := c.ExtFields[k]; ok {
		return v
	}
	return "null"
}

// perm sends WIPE_WRITE_PERM_OF_BROKER or ADD_WRITE_PERM_OF_BROKER.
func (d *traceDriver) perm(op traceOp) string {
	code, key := remoting.WipeWritePermOfBroker, "wipeTopicCount"
	if op.Op == "addperm" {
		code, key = remoting.AddWritePermOfBroker, "addTopicCount"
	}
	resp := d.send(code, map[string]string{"brokerName": op.Name}, nil)
	return "n=" + extOrNull(resp, key)
}

// answers asks every question of the universe, pipelined on the query
// connection, and renders the lines as the trace prints them.
func (d *traceDriver) answers(u traceUniverse) []string {
	var reqs []*remoting.Command
	var labels []string
	add := func(label string, code int32, ext map[string]string, version int32) {
		r := remoting.NewRequest(code, ext, nil)
		if version != 0 {
			r.Version = version
		}
		reqs, labels = append(reqs, r), append(labels, label)
	}
	for _, tp := range u.Topics {
		add("105 "+tp+" d", remoting.GetRouteinfoByTopic, map[string]string{"topic": tp}, traceDefaultFlavour)
		add("105 "+tp+" s", remoting.GetRouteinfoByTopic, map[string]string{"topic": tp}, traceStandardFlavour)
	}
	add("106", remoting.GetBrokerClusterInfo, nil, 0)
	add("206", remoting.GetAllTopicListFromNameserver, nil, 0)
	for _, c := range u.Clusters {
		add("224 "+c, remoting.GetTopicsByCluster, map[string]string{"cluster": c}, 0)
	}
	add("304", remoting.GetSystemTopicListFromNs, nil, 0)
	add("311", remoting.GetUnitTopicList, nil, 0)
	add("312", remoting.GetHasUnitSubTopicList, nil, 0)
	add("313", remoting.GetHasUnitSubUnunitTopicList, nil, 0)
	for _, n := range u.Names {
		add("901 "+n, remoting.GetBrokerMemberGroup, map[string]string{"clusterName": "c1", "brokerName": n}, 0)
	}
	out := make([]string, len(reqs))
	for i, resp := range d.roundTrip(d.query, reqs...) {
		if resp.Code != remoting.Success {
			out[i] = fmt.Sprintf("%s %d", labels[i], resp.Code)
			continue
		}
		out[i] = labels[i] + " " + string(resp.Body)
	}
	return out
}
