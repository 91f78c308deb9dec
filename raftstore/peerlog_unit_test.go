//go:build embedded_controller

package raftstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/metrics"
)

func newTestPeerLog(every time.Duration) (*peerLog, *jsonLines) {
	out := &jsonLines{}
	logger := hclog.New(&hclog.LoggerOptions{Name: "n0", Level: hclog.Debug, Output: out, JSONFormat: true})
	cfg := &Config{SelfID: "n0", Peers: []Peer{{ID: "n0"}, {ID: "n1"}, {ID: "n2"}}, PeerErrorLogInterval: every}
	return newPeerLog(logger, cfg), out
}

// messages returns the messages written about (peer, kind), in order, and
// the attempts they account for.
func (l *jsonLines) messages(peer, kind string) (msgs []string, failed int) {
	lines, failed := l.linesOf("n0.peers", peer, kind)
	for _, m := range lines {
		msgs = append(msgs, m["@message"].(string))
	}
	return msgs, failed
}

// TestPeerLogOutage: one outage of one (peer, kind) on a given clock: its
// first failure written with the error, the rest summed up per interval,
// a changed error written once per interval, the end written once; the
// lines' failed values add up to the count.
func TestPeerLogOutage(t *testing.T) {
	const every = time.Second
	p, out := newTestPeerLog(every)
	t0 := monotime.Now()
	refused, reset := errors.New("connection refused"), errors.New("connection reset")
	for i := range 20 {
		p.fail("n1", KindHeartbeat, refused, t0.Add(time.Duration(i)*10*time.Millisecond))
	}
	p.summarize()
	p.fail("n1", KindHeartbeat, reset, t0.Add(300*time.Millisecond))
	p.fail("n1", KindHeartbeat, refused, t0.Add(400*time.Millisecond)) // a second change in the interval: summed up
	p.fail("n1", KindHeartbeat, refused, t0.Add(500*time.Millisecond))
	p.summarize()
	p.summarize() // nothing new: no line
	p.ok("n1", KindHeartbeat, t0.Add(2*time.Second))
	p.ok("n1", KindHeartbeat, t0.Add(3*time.Second)) // not failing: no line
	msgs, failed := out.messages("n1", KindHeartbeat)
	require.Equal(t, []string{msgPeerFailed, msgPeerSummary, msgPeerChanged, msgPeerSummary, msgPeerResumed}, msgs)
	require.Equal(t, 23, failed)
	require.Contains(t, p.counts(), PeerErrorCount{Peer: "n1", Kind: KindHeartbeat, Failed: 23})
	require.Zero(t, p.failing.Load())
}

// TestPeerLogFlappingPeerIsSummarized: an outage starting within an
// interval of the previous one's end is not written until a summary,
// which announces it; its end is then written. After a quiet interval a
// new outage is written at once again.
func TestPeerLogFlappingPeerIsSummarized(t *testing.T) {
	const every = time.Second
	p, out := newTestPeerLog(every)
	t0 := monotime.Now()
	err := errors.New("i/o timeout")
	p.fail("n2", KindAppendEntries, err, t0)
	p.ok("n2", KindAppendEntries, t0.Add(10*time.Millisecond))
	for i := range 50 { // flapping: fail, answer, fail...
		at := t0.Add(time.Duration(20+20*i) * time.Millisecond)
		p.fail("n2", KindAppendEntries, err, at)
		p.ok("n2", KindAppendEntries, at.Add(10*time.Millisecond))
	}
	msgs, _ := out.messages("n2", KindAppendEntries)
	require.Equal(t, []string{msgPeerFailed, msgPeerResumed}, msgs, "the flaps are not written one by one")
	p.fail("n2", KindAppendEntries, err, t0.Add(1100*time.Millisecond)) // down again, for good
	p.summarize()
	p.ok("n2", KindAppendEntries, t0.Add(1500*time.Millisecond))
	p.fail("n2", KindAppendEntries, err, t0.Add(3*time.Second)) // a quiet interval later: written
	msgs, failed := out.messages("n2", KindAppendEntries)
	require.Equal(t, []string{msgPeerFailed, msgPeerResumed, msgPeerSummary, msgPeerResumed, msgPeerFailed}, msgs)
	require.Equal(t, 53, failed)
}

// TestPeerLogPeersAndKinds: configured peers are counted under their ids
// with zeros from the start, self excluded; any other server folds into
// OtherPeer; a success of any kind ends the peer's vote outage.
func TestPeerLogPeersAndKinds(t *testing.T) {
	p, out := newTestPeerLog(time.Second)
	require.Len(t, p.counts(), 2*len(Kinds), "n1 and n2, every kind")
	now := monotime.Now()
	for _, id := range []string{"n7", "n8", "n9"} {
		p.fail(raft.ServerID(id), KindRequestVote, errors.New("refused"), now)
	}
	require.Contains(t, p.counts(), PeerErrorCount{Peer: OtherPeer, Kind: KindRequestVote, Failed: 3})
	p.fail("n1", KindPreVote, errors.New("refused"), now)
	p.report("n1", KindHeartbeat, nil)
	msgs, _ := out.messages("n1", KindPreVote)
	require.Equal(t, []string{msgPeerFailed, msgPeerResumed}, msgs)
}

// TestQuietLoggerKeepsTheFollowersOwnLines: raft's per-attempt lines go to
// Debug, a follower's own "failed to install snapshot" (no peer) and a
// snapshot error the transport did not report stay at Error.
func TestQuietLoggerKeepsTheFollowersOwnLines(t *testing.T) {
	p, out := newTestPeerLog(time.Second)
	q := &quietLogger{Logger: p.log, peers: p}
	sent := errors.New("connection refused")
	p.report("n1", KindInstallSnapshot, sent)
	q.Error("failed to heartbeat to", "peer", "127.0.0.1:1", "error", sent)
	q.Named("x").Error("failed to make requestVote RPC", "target", "n1", "error", sent)
	q.Error("failed to install snapshot", "peer", "n1", "id", "1-2-3", "error", sent)
	q.Error("failed to send snapshot to", "peer", "n1", "error", sent)
	q.Error("failed to install snapshot", "error", errors.New("bad snapshot"))
	q.Error("failed to send snapshot to", "peer", "n1", "error", errors.New("no snapshots found"))
	levels := map[string][]string{}
	for _, m := range out.about(0) {
		levels[m["@message"].(string)] = append(levels[m["@message"].(string)], m["@level"].(string))
	}
	require.Equal(t, map[string][]string{
		msgPeerFailed:                    {"error"},
		"failed to heartbeat to":         {"debug"},
		"failed to make requestVote RPC": {"debug"},
		"failed to install snapshot":     {"debug", "error"},
		"failed to send snapshot to":     {"debug", "error"},
	}, levels)
}

// TestKindsAreTheMetricsLabels: the metric's kind label lists the kinds
// this package counts (others would fold into "other").
func TestKindsAreTheMetricsLabels(t *testing.T) {
	require.Equal(t, metrics.RaftPeerKinds, Kinds)
}

// TestPeerLogSummaryOfEveryKeyIsWritten: a summary writes a line for
// every key with failed attempts at once; lograte's burst (10 lines of a
// message a second) must not drop some of them, their counts with them.
func TestPeerLogSummaryOfEveryKeyIsWritten(t *testing.T) {
	out := &jsonLines{}
	logger := lograte.Wrap(hclog.New(&hclog.LoggerOptions{Name: "n0", Output: out, JSONFormat: true}))
	cfg := &Config{SelfID: "n0", PeerErrorLogInterval: time.Second}
	for i := range 13 {
		cfg.Peers = append(cfg.Peers, Peer{ID: fmt.Sprintf("n%d", i)})
	}
	p := newPeerLog(logger, cfg)
	now := monotime.Now()
	for _, peer := range cfg.Peers[1:] {
		for _, k := range []string{KindHeartbeat, KindAppendEntries} {
			for range 3 {
				p.fail(raft.ServerID(peer.ID), k, errors.New("connection refused"), now)
			}
		}
	}
	p.summarize()
	summaries, failed := 0, 0
	for _, m := range out.about(0) {
		if m["@message"] == msgPeerSummary {
			summaries++
			failed += int(m["failed"].(float64))
		}
	}
	t.Logf("24 keys failing: %d summary lines accounting for %d attempts", summaries, failed)
	require.Equal(t, 24, summaries)
	require.Equal(t, 24*2, failed)
}

// TestPeerLogCutsLongErrors: an error naming a stranger's certificate may
// be long; its text is kept and written cut, valid UTF-8.
func TestPeerLogCutsLongErrors(t *testing.T) {
	p, out := newTestPeerLog(time.Second)
	p.fail("n1", KindHeartbeat, errors.New("x509: CN="+strings.Repeat("é", 4096)), monotime.Now())
	lines := out.about(0)
	require.Len(t, lines, 1)
	text := lines[0]["error"].(string)
	require.LessOrEqual(t, len(text), lograte.MaxValue)
	require.True(t, utf8.ValidString(text))
}
