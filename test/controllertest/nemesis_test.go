//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// fault is one nemesis step: what it does, on which nodes, for how long.
type fault struct {
	kind  string // slow-disks, slow-disk, isolate, one-way, delay, lossy, kill-leader
	a, b  int    // node indexes (b: the other end of a one-way cut)
	d     time.Duration
	delay time.Duration // disk or link delay
	loss  float64       // chance that a chunk resets its connection
	gap   time.Duration // pause before the step
}

func (f fault) String() string {
	switch f.kind {
	case "one-way":
		return fmt.Sprintf("%s n%d->n%d for %v", f.kind, f.a, f.b, f.d)
	case "slow-disk", "delay":
		return fmt.Sprintf("%s n%d +%v for %v", f.kind, f.a, f.delay, f.d)
	case "lossy":
		return fmt.Sprintf("%s n%d %.0f%% for %v", f.kind, f.a, 100*f.loss, f.d)
	}
	return fmt.Sprintf("%s (n%d) for %v", f.kind, f.a, f.d)
}

// nemesisPlan draws the faults of a trial of length total from rng. Slow
// follower disks last longer than the 5 s request timeout (and the 3 s of
// a controller-triggered attempt), so applies time out with their entries
// in flight.
func nemesisPlan(rng *rand.Rand, total time.Duration) []fault {
	var plan []fault
	for at := time.Duration(0); at < total; {
		f := fault{gap: ms(rng, 200, 800), a: rng.IntN(3)}
		f.b = (f.a + 1 + rng.IntN(2)) % 3
		switch p := rng.IntN(100); {
		case p < 35:
			f.kind, f.d = "slow-disks", ms(rng, 5200, 7000)
		case p < 50:
			f.kind, f.d, f.delay = "slow-disk", ms(rng, 1000, 4000), ms(rng, 300, 3500)
		case p < 65:
			f.kind, f.d = "isolate", ms(rng, 800, 3000)
		case p < 75:
			f.kind, f.d = "one-way", ms(rng, 800, 3000)
		case p < 80:
			f.kind, f.d, f.delay = "delay", ms(rng, 1000, 3000), ms(rng, 20, 300)
		case p < 87:
			f.kind, f.d, f.loss = "lossy", ms(rng, 1000, 3000), 0.05+0.25*rng.Float64()
		default:
			f.kind, f.d = "kill-leader", ms(rng, 300, 2000)
		}
		plan = append(plan, f)
		at += f.gap + f.d
	}
	return plan
}

func ms(rng *rand.Rand, lo, hi int) time.Duration {
	return time.Duration(lo+rng.IntN(hi-lo+1)) * time.Millisecond
}

// runNemesis applies plan to fc, one step after the other, until ctx ends
// or the plan is done; everything is healed and restarted on return.
func runNemesis(ctx context.Context, t *testing.T, fc *faultCluster, plan []fault) {
	t.Helper()
	for _, f := range plan {
		if !sleepCtx(ctx, f.gap) {
			break
		}
		t.Logf("nemesis: %s", f)
		undo := fc.inject(f)
		sleepCtx(ctx, f.d)
		undo()
	}
	fc.heal()
}

// sleepCtx sleeps d unless ctx ends first; it reports whether ctx is live.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// inject starts f and returns what ends it.
func (fc *faultCluster) inject(f fault) func() {
	a, b := fc.nodes[f.a], fc.nodes[f.b]
	switch f.kind {
	case "slow-disks":
		for _, nd := range fc.followers() {
			fc.disks[nd.id].Pause()
		}
		return fc.heal
	case "slow-disk":
		fc.disks[a.id].SetDelay(f.delay)
		return fc.heal
	case "isolate":
		fc.setNode(a, linkFaults{cut: true})
		return fc.heal
	case "one-way":
		fc.net.set(a.id, b.id, linkFaults{cut: true})
		return fc.heal
	case "delay":
		fc.setNode(a, linkFaults{delay: f.delay})
		return fc.heal
	case "lossy":
		fc.setNode(a, linkFaults{loss: f.loss})
		return fc.heal
	}
	leader := fc.leader()
	fc.kill(leader)
	return func() { fc.restart(leader) }
}

// setNode sets f on every link of nd, both ways.
func (fc *faultCluster) setNode(nd *node, f linkFaults) {
	for _, o := range fc.nodes {
		if o != nd {
			fc.net.set(nd.id, o.id, f)
			fc.net.set(o.id, nd.id, f)
		}
	}
}
