package namesrv

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// answerScript sends a scripted sequence of requests over raw connections
// and records every answer frame, hex-encoded, one per line.
type answerScript struct {
	t      *testing.T
	srv    *Server
	conns  map[string]net.Conn
	opaque int
	out    []string
}

// conn is the script's connection of that name, dialled on first use.
func (d *answerScript) conn(name string) net.Conn {
	if c, ok := d.conns[name]; ok {
		return c
	}
	c := dialRaw(d.t, d.srv)
	d.conns[name] = c
	return c
}

// send writes one Java frame (flag 2: oneway, no answer read) and records
// the answer under step.
func (d *answerScript) send(step, conn string, code, flag, version int, ext string, b []byte) {
	d.opaque++
	h := strings.Replace(javaHeader(code, flag, d.opaque, ext), `"version":479`, fmt.Sprintf(`"version":%d`, version), 1)
	c := d.conn(conn)
	if flag == 2 {
		_, err := c.Write(javaFrame(h, b))
		require.NoError(d.t, err)
		d.out = append(d.out, step+" oneway")
		return
	}
	resp := roundTrip(d.t, c, javaFrame(h, b))
	d.out = append(d.out, step+" "+hex.EncodeToString(resp))
}

// regExt is RegisterBrokerRequestHeader as a Java broker sends it; crc ""
// is the body's own CRC.
func regExt(cluster, name, addr string, id int, eam, zone string, b []byte, crc string) string {
	if crc == "" {
		crc = fmt.Sprint(wire.CRC32(b))
	}
	ext := fmt.Sprintf(`"bodyCrc32":"%s","brokerAddr":"%s","brokerId":"%d","brokerName":"%s",`+
		`"clusterName":"%s","compressed":"false","enableActingMaster":"%s",`+
		`"haServerAddr":"%s-ha","heartbeatTimeoutMillis":"30000"`, crc, addr, id, name, cluster, eam, addr)
	if zone != "" {
		ext += `,"__ZONE_NAME":"` + zone + `"`
	}
	return ext
}

// readerAnswersGolden holds the answers of TestReaderAnswersAsLanePath
// recorded when every REGISTER_BROKER ran on the lane, and recorded again
// when routes took Java's HashMap order of their queue and broker data
// (the only change).
const readerAnswersGolden = "testdata/lane_path_answers.txt"

// TestReaderAnswersAsLanePath runs one script of registrations of
// masters, slaves and an acting-master group (first, identical, changed,
// after WIPE/ADD_WRITE_PERM, after another connection took and closed the
// channel, bad or zero bodyCrc32, compressed, version 36, oneway, a new
// zone, after DELETE_TOPIC, after UNREGISTER, with
// deleteTopicWithBrokerRegistration) with lookups, cluster info and
// QUERY_DATA_VERSION in between, and requires every answer byte for byte
// as recorded before identical registrations were answered on the
// reader (RMQ_RECORD_ANSWERS=1 records instead).
func TestReaderAnswersAsLanePath(t *testing.T) {
	srv := startServer(t, nil)
	d := &answerScript{t: t, srv: srv, conns: map[string]net.Conn{}}
	X := registerBodyQ(t, 6, 1, 8)
	X2 := registerBodyQ(t, 6, 2, 9)
	Y := registerBodyQ(t, 4, 1, 4)
	Z := registerBodyQ(t, 3, 3, 8)
	mu := func(b []byte) string { return regExt("UC", "broker-u", "10.2.0.1:10911", 0, "false", "", b, "") }
	su := func(b []byte) string { return regExt("UC", "broker-u", "10.2.0.2:10911", 1, "false", "", b, "") }
	lookup := func(step, tp string) {
		d.send(step+" lookup "+tp, "admin", 105, 0, 479, `"topic":"`+tp+`"`, nil)
	}
	cinfo := func(step string) { d.send(step+" clusterinfo", "admin", 106, 0, 479, ``, nil) }
	d.send("kv", "admin", 100, 0, 479, `"namespace":"ORDER_TOPIC_CONFIG","key":"topic-00001","value":"broker-u:8"`, nil)
	d.send("m1", "c1", 103, 0, 479, mu(X), X)
	d.send("m1 again", "c1", 103, 0, 479, mu(X), X)
	d.send("s1", "c2", 103, 0, 479, su(X), X)
	d.send("s1 again", "c2", 103, 0, 479, su(X), X)
	d.send("m1 again2", "c1", 103, 0, 479, mu(X), X)
	lookup("a", "topic-00001")
	d.send("wipe", "admin", 205, 0, 479, `"brokerName":"broker-u"`, nil)
	d.send("m1 after wipe", "c1", 103, 0, 479, mu(X), X)
	d.send("s1 after wipe", "c2", 103, 0, 479, su(X), X)
	lookup("b", "topic-00001")
	d.send("add", "admin", 327, 0, 479, `"brokerName":"broker-u"`, nil)
	d.send("m1 after add", "c1", 103, 0, 479, mu(X), X)
	lookup("c", "topic-00001")
	d.send("stranger", "c3", 103, 0, 479, mu(X), X)
	_ = d.conns["c3"].Close()
	delete(d.conns, "c3")
	poll.Until(t, `!strings.Contains(fmt.Sprintf("%+v", srv.Routes().ClusterInfo()), "0:10.2.0.1:10911")`, 10*time.Second, time.Millisecond, poll.True(func() bool {
		return !strings.Contains(fmt.Sprintf("%+v", srv.Routes().ClusterInfo()), "0:10.2.0.1:10911")
	}))
	cinfo("after stranger close")
	d.send("m1 after close", "c1", 103, 0, 479, mu(X), X)
	d.send("m1 after close again", "c1", 103, 0, 479, mu(X), X)
	d.send("bad crc", "c1", 103, 0, 479, regExt("UC", "broker-u", "10.2.0.1:10911", 0, "false", "", X, "12345"), X)
	d.send("crc 0", "c1", 103, 0, 479, regExt("UC", "broker-u", "10.2.0.1:10911", 0, "false", "", X, "0"), X)
	d.send("compressed", "c1", 103, 0, 479, strings.Replace(mu(X), `"compressed":"false"`, `"compressed":"true"`, 1), X)
	d.send("v36", "c1", 103, 0, 36, mu(X), X)
	d.send("v479 after v36", "c1", 103, 0, 479, mu(X), X)
	d.send("oneway", "c1", 103, 2, 479, mu(X), X)
	lookup("d", "topic-00002")
	d.send("m1 X2", "c1", 103, 0, 479, mu(X2), X2)
	d.send("m1 X2 again", "c1", 103, 0, 479, mu(X2), X2)
	d.send("s1 X after X2", "c2", 103, 0, 479, su(X), X)
	lookup("e", "topic-00002")
	vs := func(id int, b []byte) string {
		return regExt("VC", "broker-v", fmt.Sprintf("10.4.0.%d:10911", id), id, "true", "zz", b, "")
	}
	d.send("v1", "v1", 103, 0, 479, vs(1, Y), Y)
	d.send("v1 again", "v1", 103, 0, 479, vs(1, Y), Y)
	d.send("v2", "v2", 103, 0, 479, vs(2, Y), Y)
	d.send("v2 again", "v2", 103, 0, 479, vs(2, Y), Y)
	lookup("f", "topic-00001")
	d.send("v1 unreg", "v1", 104, 0, 479, `"brokerAddr":"10.4.0.1:10911","brokerId":"1","brokerName":"broker-v","clusterName":"VC"`, nil)
	srv.Routes().WaitIdle()
	d.send("v2 after v1 unreg", "v2", 103, 0, 479, vs(2, Y), Y)
	d.send("v2 after v1 unreg again", "v2", 103, 0, 479, vs(2, Y), Y)
	lookup("g", "topic-00001")
	d.send("zone", "c1", 103, 0, 479, regExt("UC", "broker-u", "10.2.0.1:10911", 0, "false", "zone-b", X2, ""), X2)
	d.send("zone again", "c1", 103, 0, 479, regExt("UC", "broker-u", "10.2.0.1:10911", 0, "false", "zone-b", X2, ""), X2)
	lookup("h", "topic-00003")
	d.send("deltopic", "admin", 216, 0, 479, `"topic":"topic-00002"`, nil)
	d.send("after deltopic", "c1", 103, 0, 479, regExt("UC", "broker-u", "10.2.0.1:10911", 0, "false", "zone-b", X2, ""), X2)
	lookup("i", "topic-00002")
	d.send("unreg m", "c1", 104, 0, 479, `"brokerAddr":"10.2.0.1:10911","brokerId":"0","brokerName":"broker-u","clusterName":"UC"`, nil)
	srv.Routes().WaitIdle() // the unregistration is queued when answered; applied before the next registration
	d.send("after unreg m", "c1", 103, 0, 479, regExt("UC", "broker-u", "10.2.0.1:10911", 0, "false", "zone-b", X2, ""), X2)
	srv.Routes().WaitIdle()
	lookup("j", "topic-00002")
	cinfo("j")
	d.send("config", "admin", 318, 0, 479, ``, []byte("deleteTopicWithBrokerRegistration=true\n"))
	d.send("Z", "c1", 103, 0, 479, mu(Z), Z)
	d.send("Z again", "c1", 103, 0, 479, mu(Z), Z)
	lookup("k", "topic-00004")
	d.send("qdv", "c1", 322, 0, 479, `"brokerAddr":"10.2.0.1:10911","brokerId":"0","brokerName":"broker-u","clusterName":"UC"`,
		[]byte(`{"counter":3,"stateVersion":0,"timestamp":1700000000000}`))
	lookup("l", "topic-00001")
	cinfo("end")
	got := strings.Join(d.out, "\n") + "\n"
	require.Equal(t, uint64(15), srv.Routes().Stats().UnchangedRegistrations)
	if os.Getenv("RMQ_RECORD_ANSWERS") == "1" {
		require.NoError(t, os.WriteFile(readerAnswersGolden, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(readerAnswersGolden)
	require.NoError(t, err)
	wantLines, gotLines := strings.Split(string(want), "\n"), strings.Split(got, "\n")
	require.Len(t, gotLines, len(wantLines))
	for i := range wantLines {
		require.Equal(t, wantLines[i], gotLines[i], "answer %d", i)
	}
}
