package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// TestRequestFrame: the hand-built lookup frame decodes as a Go client's
// GET_ROUTEINFO_BY_TOPIC.
func TestRequestFrame(t *testing.T) {
	c := &lookupConn{}
	c.request("BenchTopic-000001")
	frame := c.request("BenchTopic-000042")
	require.Equal(t, len(frame)-4, int(binary.BigEndian.Uint32(frame)))
	cmd, err := remoting.DecodeFrame(frame[4:])
	require.NoError(t, err)
	require.Equal(t, remoting.GetRouteinfoByTopic, cmd.Code)
	require.Equal(t, "GO", cmd.Language)
	require.Equal(t, int32(317), cmd.Version)
	require.Equal(t, int32(2), cmd.Opaque)
	require.Equal(t, map[string]string{"topic": "BenchTopic-000042"}, cmd.ExtFields)
}

// TestCheckResponse accepts a real success response and rejects errors,
// wrong opaques and empty bodies.
func TestCheckResponse(t *testing.T) {
	frameOf := func(code, opaque int32, b []byte) []byte {
		resp := remoting.NewResponse(&remoting.Command{Opaque: opaque}, code, "")
		resp.Body = b
		return remoting.EncodeFrame(nil, resp)[4:]
	}
	require.NoError(t, checkResponse(frameOf(0, 7, []byte("{}")), 7))
	require.Error(t, checkResponse(frameOf(17, 7, nil), 7))
	require.Error(t, checkResponse(frameOf(0, 71, []byte("{}")), 7))
	require.Error(t, checkResponse(frameOf(0, 7, nil), 7))
	require.Error(t, checkResponse([]byte{0, 0}, 7))
}

// TestTopology lays every topic on width brokers, evenly.
func TestTopology(t *testing.T) {
	topo := newTopology(20_000, 40, 4)
	require.Len(t, topo.topics, 20_000)
	for _, b := range topo.brokers {
		require.Len(t, b.topics, 2_000)
	}
}

// TestBodyTemplate: a templated body decodes with the counter asked for
// and every topic of the broker.
func TestBodyTemplate(t *testing.T) {
	topo := newTopology(100, 10, 4)
	tmpl, err := newBodyTemplate(&topo.brokers[3])
	require.NoError(t, err)
	rb, err := wire.DecodeRegisterBody(tmpl.body(nil, 42), brokerVersion, false)
	require.NoError(t, err)
	require.Equal(t, int64(42), rb.DataVersion.Counter)
	require.Len(t, rb.TopicConfigs, 40)
	req := registerRequest(&topo.brokers[3], tmpl.body(nil, 42))
	require.Equal(t, "false", req.ExtFields["compressed"])
	require.NotEqual(t, "0", req.ExtFields["bodyCrc32"])
}

// TestSummarize: percentiles use rank ceil(n·p) − 1 over sorted samples.
func TestSummarize(t *testing.T) {
	samples := make([]int64, 0, 1000)
	for i := 1000; i >= 1; i-- {
		samples = append(samples, int64(i)*1000) // 1..1000 µs
	}
	l := summarize(samples, time.Second)
	require.Equal(t, 1000, l.Count)
	require.InDelta(t, 1000, l.QPS, 1e-9)
	require.InDelta(t, 500, l.P50US, 1e-9)
	require.InDelta(t, 990, l.P99US, 1e-9)
	require.InDelta(t, 999, l.P999US, 1e-9)
	require.InDelta(t, 1000, l.MaxUS, 1e-9)
	require.Zero(t, summarize(nil, time.Second).QPS)
}

// TestMixGate: a write may go only while writes stay within pct%.
func TestMixGate(t *testing.T) {
	g := &mixGate{pct: 5}
	require.True(t, g.writeMayGo())
	g.regs.Store(1)
	g.lookups.Store(18)
	require.False(t, g.writeMayGo())
	g.lookups.Store(19)
	require.True(t, g.writeMayGo())
}

// TestFlags rejects meaningless values.
func TestFlags(t *testing.T) {
	_, err := parseFlags([]string{"-workload", "nope"}, testWriter{t})
	require.Error(t, err)
	o, err := parseFlags([]string{"-workload", "small", "-duration", "3s"}, testWriter{t})
	require.NoError(t, err)
	require.Equal(t, 3*time.Second, o.duration)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// TestMain lets the test binary serve as the limit-server, lean-limit and
// in-process NameServer child, as the loadgen binary does when re-executed.
func TestMain(m *testing.M) {
	for _, a := range os.Args[1:] {
		if a == "-serve-limit" || a == "-serve-namesrv" || a == "-serve-lean" {
			os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
		}
	}
	os.Exit(m.Run())
}

// TestSmallSmoke runs the small workload briefly end to end: go build of
// the NameServer, both children, registration, lookups, report.
func TestSmallSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the NameServer")
	}
	var out bytes.Buffer
	code := run([]string{"-workload", "small", "-duration", "400ms", "-warmup", "100ms",
		"-rounds", "2", "-conns", "2", "-json"}, &out, testWriter{t})
	require.Equal(t, 0, code)
	var rep report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.NotNil(t, rep.Small)
	require.Positive(t, rep.Small.Route.Latency.Count)
	require.Positive(t, rep.Small.Limit.Latency.Count)
	require.Positive(t, rep.Small.Route.PeakRSSMB)
	require.Len(t, rep.Targets, 2)
}

// TestBodyTemplateVariants: the -churn-edit variant differs only in the
// write queue count.
func TestBodyTemplateVariants(t *testing.T) {
	topo := newTopology(100, 10, 4)
	a, err := newBodyTemplate(&topo.brokers[1])
	require.NoError(t, err)
	b, err := newBodyTemplateQueues(&topo.brokers[1], writeQueues+1)
	require.NoError(t, err)
	ra, err := wire.DecodeRegisterBody(a.body(nil, 5), brokerVersion, false)
	require.NoError(t, err)
	rb, err := wire.DecodeRegisterBody(b.body(nil, 5), brokerVersion, false)
	require.NoError(t, err)
	require.Equal(t, ra.DataVersion, rb.DataVersion)
	require.Len(t, rb.TopicConfigs, len(ra.TopicConfigs))
	for name, tc := range ra.TopicConfigs {
		require.Equal(t, int32(writeQueues), tc.WriteQueueNums)
		tc.WriteQueueNums++
		require.Equal(t, tc, rb.TopicConfigs[name])
	}
}
