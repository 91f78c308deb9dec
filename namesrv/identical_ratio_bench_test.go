package namesrv

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// identicalFloorTarget is the bound on an identical re-registration
// end to end, as a multiple of the transport floor of the same frame.
const identicalFloorTarget = 1.25

// BenchmarkRegisterIdenticalToFloor measures, in one run and alternating
// pair by pair, an identical re-registration of one master of 10,000
// topics (the 1.6 MB frame of BenchmarkRegister10kLoopback, the same bytes
// each time: hashed, not decoded) and the transport floor: the same frame
// sent with a request code the server refuses without reading the body.
// It reports the median of each (identical-ms, floor-ms) and their ratio
// (identical/floor), wanted at or under 1.25 (target), and
// the ratio of their lower deciles (p10-identical/floor). Each
// pair starts with the other request than the last, so neither always
// follows the other. The server logs nothing: the floor's refusal would
// otherwise log at debug level on every request.
func BenchmarkRegisterIdenticalToFloor(b *testing.B) {
	srv := startQuietServer(b)
	c := dial(b, srv)
	bd := registerBody(b, 10_000, 5)
	identical := javaRegister(remoting.RegisterBroker, bd)
	floor := javaRegister(9999, bd)
	if resp := invoke(b, c, identical); resp.Code != remoting.Success {
		b.Fatal(resp.Remark) // the first registration decodes the body
	}
	invoke(b, c, floor)
	ti := make([]time.Duration, 0, b.N)
	tf := make([]time.Duration, 0, b.N)
	b.SetBytes(int64(len(bd)))
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			tf = append(tf, timeInvoke(b, c, floor, false))
			ti = append(ti, timeInvoke(b, c, identical, true))
		} else {
			ti = append(ti, timeInvoke(b, c, identical, true))
			tf = append(tf, timeInvoke(b, c, floor, false))
		}
	}
	b.StopTimer()
	require.GreaterOrEqual(b, srv.Routes().Stats().UnchangedRegistrations, uint64(b.N),
		"identical re-registrations must take the unchanged path")
	mi, mf := quantile(ti, 0.5), quantile(tf, 0.5)
	b.ReportMetric(ms(mi), "identical-ms")
	b.ReportMetric(ms(mf), "floor-ms")
	b.ReportMetric(float64(mi)/float64(mf), "identical/floor")
	b.ReportMetric(identicalFloorTarget, "target")
	// The lower decile of each: what the pair costs when the machine
	// leaves the benchmark alone (a loaded machine delays the identical
	// path's hand-offs between goroutines more than the floor's).
	b.ReportMetric(float64(quantile(ti, 0.1))/float64(quantile(tf, 0.1)), "p10-identical/floor")
}

// startQuietServer is startServer with a logger that drops everything.
func startQuietServer(b *testing.B) *Server {
	cfg := testConfig(b)
	srv, err := New(cfg, hclog.NewNullLogger())
	require.NoError(b, err)
	require.NoError(b, srv.Start())
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(b, srv.Shutdown(ctx))
	})
	return srv
}

// timeInvoke sends req and times the round trip; ok says whether the
// server must accept it (the identical registration) or refuse it (the
// floor's unknown code).
func timeInvoke(b *testing.B, c *remoting.Client, req *remoting.Command, ok bool) time.Duration {
	start := time.Now()
	resp := invoke(b, c, req)
	d := time.Since(start)
	if (resp.Code == remoting.Success) != ok {
		b.Fatalf("code %d: %s", resp.Code, resp.Remark)
	}
	return d
}

// quantile returns the sample at quantile q (0.5: the median, the upper
// middle one of an even count).
func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
