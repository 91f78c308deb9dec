package namesrv

import (
	"strconv"
	"testing"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// BenchmarkRegister10kLoopback re-registers one master of 10,000 topics
// (about 1.6 MB of body) over loopback, end to end, alternating two
// bodies: changed (new DataVersion, same topics: decoded, nothing
// republished), edited (new DataVersion, every topic's write queue count
// flips between 8 and 9: decoded and republished) and identical (the same
// bytes each time: hashed, not decoded). floor sends the same frame with a
// request code the server refuses without reading the body: the cost of
// moving 1.6 MB through the transport.
func BenchmarkRegister10kLoopback(b *testing.B) {
	srv := startServer(b, nil)
	c := dial(b, srv)
	bodies := map[string][2][]byte{
		"changed":   {registerBody(b, 10_000, 1), registerBody(b, 10_000, 2)},
		"edited":    {registerBodyQ(b, 10_000, 3, 8), registerBodyQ(b, 10_000, 4, 9)},
		"identical": {registerBody(b, 10_000, 5), registerBody(b, 10_000, 5)},
		"floor":     {registerBody(b, 10_000, 5), registerBody(b, 10_000, 5)},
	}
	b.Logf("body %d bytes", len(bodies["changed"][0]))
	for _, kind := range []string{"changed", "edited", "identical", "floor"} {
		b.Run(kind, func(b *testing.B) {
			code := remoting.RegisterBroker
			if kind == "floor" {
				code = 9999
			}
			invoke(b, c, javaRegister(code, bodies[kind][1]))
			for i := range b.N {
				resp := invoke(b, c, javaRegister(code, bodies[kind][i%2]))
				if (resp.Code == remoting.Success) == (kind == "floor") {
					b.Fatal(resp.Remark)
				}
			}
		})
	}
	b.Logf("unchanged registrations: %d of %d", srv.Routes().Stats().UnchangedRegistrations,
		srv.Routes().Stats().Registrations)
}

// javaRegister is a Java master's REGISTER_BROKER for broker-l.
func javaRegister(code int32, bd []byte) *remoting.Command {
	return remoting.NewRequest(code, map[string]string{"brokerAddr": "10.3.0.1:10911",
		"brokerId": "0", "brokerName": "broker-l", "clusterName": "LCluster", "compressed": "false",
		"enableActingMaster": "false", "haServerAddr": "10.3.0.1:10912", "heartbeatTimeoutMillis": "30000",
		"bodyCrc32": strconv.FormatInt(int64(wire.CRC32(bd)), 10)}, bd)
}
