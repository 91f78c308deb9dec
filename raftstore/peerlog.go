//go:build embedded_controller

package raftstore

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/internal/monotime"
)

// Kinds of outbound Raft RPC, the kind of a PeerErrorCount.
const (
	KindHeartbeat       = "heartbeat"
	KindAppendEntries   = "append_entries"
	KindPipeline        = "pipeline"
	KindRequestVote     = "request_vote"
	KindPreVote         = "pre_vote"
	KindInstallSnapshot = "install_snapshot"
	KindTimeoutNow      = "timeout_now"
)

// Kinds lists every kind, in the order PeerErrors reports them.
var Kinds = []string{KindHeartbeat, KindAppendEntries, KindPipeline, KindRequestVote,
	KindPreVote, KindInstallSnapshot, KindTimeoutNow}

// OtherPeer is the peer of a PeerErrorCount for a server not in
// Config.Peers (one added later): the labels stay the configured ones.
const OtherPeer = "other"

// The peer error log's messages; each line carries peer, kind, error and
// failed, the attempts it accounts for (those since the key's last line).
const (
	msgPeerFailed   = "raft rpc to peer failed"
	msgPeerChanged  = "raft rpc to peer failed with another error"
	msgPeerSummary  = "raft rpcs to peer failed in the last interval"
	msgPeerResumed  = "raft rpc to peer succeeded again"
	maxPeerErrorLen = lograte.MaxValue // of an error text kept for comparison
)

// PeerErrorCount is how many outbound RPCs of Kind to Peer have failed
// since Open, each counted whether it was logged or summarized.
type PeerErrorCount struct {
	Peer, Kind string
	Failed     uint64
}

// episodic are the kinds sent now and then (elections, a leadership
// transfer): a success of any kind to the peer ends their outage too.
var episodic = []string{KindRequestVote, KindPreVote, KindTimeoutNow}

type peerKey struct{ peer, kind string }

// peerState is one (peer, kind)'s account.
type peerState struct {
	total     uint64 // failed attempts since Open
	pending   uint64 // failed attempts since the key's last line
	outage    uint64 // failed attempts of the current outage
	failing   bool
	announced bool // the current outage has been written about
	err       error
	text      string        // err's text, cut
	began     monotime.Mono // the current outage's first failure
	changed   monotime.Mono // the last line about a changed error
	ended     monotime.Mono // the previous outage's end
}

// peerLog replaces hashicorp/raft's line per failed outbound RPC (one a
// heartbeat while a peer is down: four a second) by a few per outage of
// each (peer, kind): the first failure with its error, a changed error (at
// most once per interval), one summary per interval with the attempts
// that failed in it, and the first success after. An outage starting
// within an interval of the previous one's end (a flapping peer) is only
// summarized, and announced by its first summary. Intervals are read on
// the monotonic clock.
type peerLog struct {
	log     hclog.Logger
	every   time.Duration
	labels  map[raft.ServerID]string
	failing atomic.Int64 // keys failing: a success is free while none is

	mu   sync.Mutex
	keys map[peerKey]*peerState // configured peers (and OtherPeer) × Kinds
}

func newPeerLog(logger hclog.Logger, cfg *Config) *peerLog {
	// Its lines are bounded here (at most four per key and interval), not
	// by lograte's burst, which a summary of every key at once may pass.
	log := lograte.WithLimit(logger.Named("peers"), 0, msgPeerFailed, msgPeerChanged, msgPeerSummary, msgPeerResumed)
	p := &peerLog{log: log, every: cfg.PeerErrorLogInterval,
		labels: map[raft.ServerID]string{}, keys: map[peerKey]*peerState{}}
	for _, peer := range cfg.Peers {
		if peer.ID == cfg.SelfID {
			continue
		}
		p.labels[raft.ServerID(peer.ID)] = peer.ID
		for _, k := range Kinds {
			p.keys[peerKey{peer.ID, k}] = &peerState{}
		}
	}
	return p
}

// state returns the account of (id, kind); a server not configured
// shares OtherPeer's. Call with mu held.
func (p *peerLog) state(id raft.ServerID, kind string) (peerKey, *peerState) {
	label, ok := p.labels[id]
	if !ok {
		label = OtherPeer
	}
	k := peerKey{label, kind}
	st := p.keys[k]
	if st == nil {
		st = &peerState{}
		p.keys[k] = st
	}
	return k, st
}

// report accounts for one outbound RPC of kind to id: err is its result.
func (p *peerLog) report(id raft.ServerID, kind string, err error) {
	if errors.Is(err, ErrVoteFloor) { // this node's own guard did not send it
		return
	}
	if err != nil {
		p.fail(id, kind, err, monotime.Now())
	} else if p.failing.Load() > 0 {
		p.ok(id, kind, monotime.Now())
	}
}

func (p *peerLog) fail(id raft.ServerID, kind string, err error, now monotime.Mono) {
	text := err.Error()
	if len(text) > maxPeerErrorLen { // a certificate's name is a stranger's
		text = strings.ToValidUTF8(text[:maxPeerErrorLen], "")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k, st := p.state(id, kind)
	st.total++
	st.pending++
	st.outage++
	st.err = err
	switch {
	case !st.failing:
		p.failing.Add(1)
		st.failing, st.began, st.outage, st.text = true, now, 1, text
		st.announced = st.ended == 0 || now.Sub(st.ended) >= p.every
		if st.announced {
			p.line(hclog.Error, msgPeerFailed, k, st, "error", text)
		}
	case text != st.text:
		prev := st.text
		st.text = text
		if st.announced && (st.changed == 0 || now.Sub(st.changed) >= p.every) {
			st.changed = now
			p.line(hclog.Error, msgPeerChanged, k, st, "error", text, "previous_error", prev)
		}
	}
}

// ok ends the outage of (id, kind) and of id's episodic kinds.
func (p *peerLog) ok(id raft.ServerID, kind string, now monotime.Mono) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resume(id, kind, now)
	for _, e := range episodic {
		if e != kind {
			p.resume(id, e, now)
		}
	}
}

func (p *peerLog) resume(id raft.ServerID, kind string, now monotime.Mono) {
	k, st := p.state(id, kind)
	if !st.failing {
		return
	}
	p.failing.Add(-1)
	st.failing, st.ended = false, now
	if st.announced {
		p.line(hclog.Info, msgPeerResumed, k, st, "last_error", st.text,
			"outage_failed", st.outage, "down_for", now.Sub(st.began).Round(time.Millisecond))
	}
}

// summarize writes one line for each key with attempts not yet written
// about; it announces an outage that is still on.
func (p *peerLog) summarize() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range slices.SortedFunc(maps.Keys(p.keys), comparePeerKeys) {
		st := p.keys[k]
		if st.pending == 0 {
			continue
		}
		st.announced = st.announced || st.failing
		p.line(hclog.Error, msgPeerSummary, k, st, "error", st.text, "failing", st.failing,
			"interval", p.every)
	}
}

// line writes msg about k with the attempts since its last line.
func (p *peerLog) line(level hclog.Level, msg string, k peerKey, st *peerState, args ...any) {
	args = append([]any{"peer", k.peer, "kind", k.kind, "failed", st.pending}, args...)
	st.pending = 0
	p.log.Log(level, msg, args...)
}

// run writes the summaries every interval until stop is closed.
func (p *peerLog) run(stop <-chan struct{}) {
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.summarize()
		case <-stop:
			return
		}
	}
}

// counts returns every key's total failed attempts, configured peers'
// zeros included, ordered by peer then kind.
func (p *peerLog) counts() []PeerErrorCount {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PeerErrorCount, 0, len(p.keys))
	for _, k := range slices.SortedFunc(maps.Keys(p.keys), comparePeerKeys) {
		out = append(out, PeerErrorCount{Peer: k.peer, Kind: k.kind, Failed: p.keys[k].total})
	}
	return out
}

// reported reports whether err is the last error an InstallSnapshot to
// any peer failed with (raft logs it twice).
func (p *peerLog) reported(err error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, st := range p.keys {
		if k.kind == KindInstallSnapshot && st.err != nil && errors.Is(err, st.err) {
			return true
		}
	}
	return false
}

// comparePeerKeys orders keys by peer, then by kind as in Kinds.
func comparePeerKeys(a, b peerKey) int {
	if c := cmp.Compare(a.peer, b.peer); c != 0 {
		return c
	}
	return cmp.Compare(slices.Index(Kinds, a.kind), slices.Index(Kinds, b.kind))
}
