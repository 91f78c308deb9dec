//go:build embedded_controller

package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/ctlbroker"
)

// stormRun is one failover storm in progress.
type stormRun struct {
	g      *ctlGroup
	co     ctlOptions
	sets   []*ctlSet
	failed map[int]bool
	before map[*ctlbroker.Broker]int // notices each broker held before the failure
	start  []time.Time               // per set: the failure (close) or the master's last beat (silence)
	probs  *problems
}

// outcome is one failed set after the storm.
type outcome struct {
	took    time.Duration
	by1004  bool
	missing bool
}

// runStorm fails the masters of co.fail of the sets (chosen with seed),
// waits for every new master and checks the outcome.
func runStorm(g *ctlGroup, co ctlOptions, sets []*ctlSet, seed int64, probs *problems) (*ctlStorm, error) {
	r := &stormRun{g: g, co: co, sets: sets, failed: pickFailed(len(sets), co.fail, seed),
		before: map[*ctlbroker.Broker]int{}, start: make([]time.Time, len(sets)), probs: probs}
	for _, s := range sets {
		for _, b := range s.brokers {
			r.before[b] = len(b.Notices())
		}
	}
	old, err := g.waitLeader(ctlLeaderWait)
	if err != nil {
		return nil, err
	}
	res := &ctlStorm{Mode: co.mode, FailedSets: len(r.failed), KillLeader: co.killLeader}
	mark := g.mark()
	prof := startPhaseProfile(co.profile)
	r.fail()
	killed := make(chan struct{})
	go r.killLeader(old, res, killed)
	outs := r.awaitAll()
	prof.write(co.profile, "storm")
	<-killed
	leader, err := g.waitLeader(ctlLeaderWait)
	if err != nil {
		return nil, err
	}
	res.NewLeader = leader.id
	r.checkLive(leader)
	leaders := []string{old.id}
	if leader != old {
		leaders = append(leaders, leader.id)
	}
	res.Raft = g.since(mark, leaders...)
	r.summarize(res, outs)
	return res, nil
}

// fail injects the failure into every failed set's master at once.
func (r *stormRun) fail() {
	var wg sync.WaitGroup
	for i := range r.failed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.start[i] = r.sets[i].master().StopHeartbeats()
		}()
	}
	wg.Wait()
	if r.co.mode != "close" {
		return
	}
	now := time.Now()
	for i := range r.failed {
		r.start[i] = now
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.sets[i].master().CloseConns()
		}()
	}
	wg.Wait()
}

// killLeader stops old once the first new master was notified (or after
// a second), when -kill-leader is set; it closes done when finished.
func (r *stormRun) killLeader(old *ctlNode, res *ctlStorm, done chan struct{}) {
	defer close(done)
	if !r.co.killLeader {
		return
	}
	t0 := time.Now()
	deadline := t0.Add(r.co.hbTimeout + 2*time.Second)
	for time.Now().Before(deadline) && !r.anyNotified() {
		time.Sleep(time.Millisecond)
	}
	res.LeaderKilled, res.KilledAfterMS = old.id, float64(time.Since(t0).Microseconds())/1e3
	if err := r.g.stop(old); err != nil {
		r.probs.add("stop leader %s: %v", old.id, err)
	}
}

// anyNotified reports whether some failed set's broker got a new 1008.
func (r *stormRun) anyNotified() bool {
	for i := range r.failed {
		for _, b := range r.sets[i].brokers[1:] {
			if len(b.Notices()) > r.before[b] {
				return true
			}
		}
	}
	return false
}

// awaitAll waits for every failed set's new master, one goroutine a set.
func (r *stormRun) awaitAll() map[int]outcome {
	ctx, cancel := context.WithTimeout(context.Background(), r.co.hbTimeout+r.co.noticeWait)
	defer cancel()
	outs := make(map[int]outcome, len(r.failed))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range r.failed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := r.await(ctx, i)
			mu.Lock()
			outs[i] = o
			mu.Unlock()
		}()
	}
	wg.Wait()
	return outs
}

// await waits for set i's new master: the first 1008 naming masterEpoch+1
// that a surviving broker receives names the new master, whose own 1008
// is the time taken. Without one by -notice-wait (a leader kill can lose
// a notification), it polls both that and 1004 (which Java's brokers ask
// every 5 s) for up to ctlSettleWait more.
func (r *stormRun) await(ctx context.Context, i int) outcome {
	s := r.sets[i]
	want := strconv.Itoa(int(s.masterEpoch + 1))
	if n, ok := r.firstNotice(ctx, s); ok {
		return r.checkNotice(ctx, i, n, want)
	}
	deadline := time.Now().Add(ctlSettleWait)
	for {
		short, cancel := context.WithTimeout(context.Background(), ctlSettlePoll)
		n, ok := r.firstNotice(short, s)
		cancel()
		if ok {
			return r.checkNotice(context.Background(), i, n, want)
		}
		o, done := r.by1004(i, time.Now().After(deadline))
		if !done {
			continue
		}
		if o.by1004 { // 1004 and the 1008 come from the same applied entry
			short, cancel := context.WithTimeout(context.Background(), ctlLateNotice)
			n, ok := r.firstNotice(short, s)
			cancel()
			if ok {
				return r.checkNotice(context.Background(), i, n, want)
			}
		}
		return o
	}
}

// firstNotice is the first 1008 naming s's next master epoch that a
// surviving broker of s receives before ctx ends.
func (r *stormRun) firstNotice(ctx context.Context, s *ctlSet) (ctlbroker.Notice, bool) {
	first := make(chan ctlbroker.Notice, len(s.brokers))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, b := range s.brokers[1:] {
		go func() {
			if n, err := b.WaitNotice(wctx, s.masterEpoch+1); err == nil {
				first <- n
			}
		}()
	}
	select {
	case n := <-first:
		return n, true
	case <-ctx.Done():
		return ctlbroker.Notice{}, false
	}
}

// checkNotice checks the 1008 that names set i's new master and returns
// the time until the new master's own 1008.
func (r *stormRun) checkNotice(ctx context.Context, i int, n ctlbroker.Notice, want string) outcome {
	s := r.sets[i]
	id, _ := strconv.ParseInt(n.Req.ExtFields["masterBrokerId"], 10, 64)
	nm := s.byID(id)
	if nm == nil || nm == s.master() {
		r.probs.add("%s: new master id %d is not a surviving member of the sync-state set", s.name, id)
		return outcome{missing: true}
	}
	own, err := nm.WaitNotice(ctx, s.masterEpoch+1)
	if err != nil || own.Req.ExtFields["masterBrokerId"] != n.Req.ExtFields["masterBrokerId"] {
		r.probs.add("%s: the new master %d got no 1008 for epoch %s naming itself", s.name, id, want)
		return outcome{missing: true}
	}
	if own.Req.ExtFields["masterAddress"] != nm.Addr() {
		r.probs.add("%s: 1008 masterAddress %q, want %q", s.name, own.Req.ExtFields["masterAddress"], nm.Addr())
	}
	return outcome{took: own.At.Sub(r.start[i])}
}

// by1004 asks the current leader for set i's master; done when it names
// a new master, or when last (then a missing master is a problem).
func (r *stormRun) by1004(i int, last bool) (outcome, bool) {
	s := r.sets[i]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := s.brokers[1].ReplicaInfo(ctx)
	if err == nil && resp.Code == remoting.Success {
		id, epoch := resp.ExtFields["masterBrokerId"], resp.ExtFields["masterEpoch"]
		if id != "" && id != strconv.FormatInt(s.master().ID(), 10) && epoch != strconv.Itoa(int(s.masterEpoch)) {
			return outcome{by1004: true}, true
		}
		err = fmt.Errorf("1004 says master %q epoch %q", id, epoch)
	}
	if last {
		r.probs.add("%s: no new master %v after the failure: %v", s.name, r.co.hbTimeout+r.co.noticeWait+ctlSettleWait, err)
	}
	return outcome{missing: true}, last
}

// checkLive checks that every set ends with exactly one master change if
// it failed and none otherwise: each broker's 1008s since the failure
// name one master epoch (the next) and one master for a failed set, and
// none arrived in a live set; the leader's master epochs agree.
func (r *stormRun) checkLive(leader *ctlNode) {
	epochs := leader.ctl.MasterEpochs()
	for i, s := range r.sets {
		want := s.masterEpoch
		if r.failed[i] {
			want++
		}
		if got := epochs[s.name]; got != want {
			r.probs.add("%s: master epoch %d on the leader, want %d (failed %v)", s.name, got, want, r.failed[i])
		}
		r.checkNotices(i, s)
	}
}

// checkNotices checks the 1008s set i's brokers received since the failure.
// A 1008 that tells again the master and master epoch the set had before
// the failure (a new leader re-sends the roles of its first moments'
// elections) names no new master.
func (r *stormRun) checkNotices(i int, s *ctlSet) {
	known := fmt.Sprintf("%d/%d", s.masterEpoch, s.master().ID())
	masters := map[string]bool{}
	for _, b := range s.brokers {
		for _, n := range b.Notices()[r.before[b]:] {
			if m := n.Req.ExtFields["masterEpoch"] + "/" + n.Req.ExtFields["masterBrokerId"]; m != known {
				masters[m] = true
			}
		}
	}
	switch {
	case !r.failed[i] && len(masters) > 0:
		r.probs.add("%s: a live set was told of a new master: %v", s.name, masters)
	case r.failed[i] && len(masters) > 1:
		r.probs.add("%s: more than one new master: %v", s.name, masters)
	}
}

// summarize fills the latency figures from the outcomes.
func (r *stormRun) summarize(res *ctlStorm, outs map[int]outcome) {
	var took []int64
	for _, o := range outs {
		switch {
		case o.by1004:
			res.LearnedBy1004++
		case !o.missing:
			res.Notified++
			took = append(took, int64(o.took))
		}
	}
	l := summarize(took, 0)
	res.P50MS, res.P99MS, res.LastMS = l.P50US/1e3, l.P99US/1e3, l.MaxUS/1e3
	if r.co.mode == "silence" {
		t := r.co.hbTimeout.Seconds() * 1e3
		res.AfterTimeout = &ctlAfterT{P50MS: res.P50MS - t, P99MS: res.P99MS - t, LastMS: res.LastMS - t}
	}
	if n := len(r.failed); n > 0 {
		res.Raft.PerEvent = fmt.Sprintf("%.2f entries, %.2f leader log writes per failover",
			float64(res.Raft.Entries)/float64(n), float64(res.Raft.LogWrites)/float64(n))
	}
}

// problems collects correctness problems (the first ctlMaxProblems kept).
type problems struct {
	mu    sync.Mutex
	n     int
	items []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if len(p.items) < ctlMaxProblems {
		p.items = append(p.items, fmt.Sprintf(format, args...))
	}
}
