//go:build embedded_controller

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/remoting"
)

// ctlProbeEvery is the period of the 904 latency probe of the hb phase.
const ctlProbeEvery = 10 * time.Millisecond

// runOps is the throughput phase: clients (each owning every clients-th
// set, so that each set's epochs are tracked by one client) send the
// masters' 1001 closed-loop for co.opsTime, toggling the sync-state set
// between {master} and every broker; each set ends with every broker in it.
func runOps(g *ctlGroup, co ctlOptions, sets []*ctlSet, probs *problems) *ctlOps {
	clients := min(co.opsClients, len(sets))
	mark := g.mark()
	prof := startPhaseProfile(co.profile)
	lat := make([][]int64, clients)
	errs := make([]int, clients)
	deadline := time.Now().Add(co.opsTime)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat[c], errs[c] = opsClient(sets, c, clients, deadline)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	prof.write(co.profile, "ops")
	res := &ctlOps{Clients: clients}
	var all []int64
	for c := range clients {
		all = append(all, lat[c]...)
		res.Errors += errs[c]
	}
	res.Latency = summarize(all, wall)
	res.Raft = g.since(mark, g.leaderID())
	if n := len(all); n > 0 {
		res.Raft.PerEvent = fmt.Sprintf("%.2f entries, %.2f leader log writes per alter",
			float64(res.Raft.Entries)/float64(n), float64(res.Raft.LogWrites)/float64(n))
	}
	restoreSyncStateSets(sets, probs)
	return res
}

// opsClient runs client c's alters until deadline; a set whose alter
// failed is left alone afterwards.
func opsClient(sets []*ctlSet, c, clients int, deadline time.Time) (lat []int64, errs int) {
	broken := map[int]bool{}
	for round := 0; time.Now().Before(deadline); round++ {
		i := c + (round%((len(sets)-c+clients-1)/clients))*clients
		if broken[i] {
			if len(broken) == (len(sets)-c+clients-1)/clients {
				return lat, errs
			}
			continue
		}
		s := sets[i]
		ids := s.ids()
		if s.ssEpoch%2 == 0 { // even epochs hold every broker (setup ends at 2)
			ids = []int64{s.master().ID()}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		t0 := time.Now()
		err := s.alter(ctx, ids)
		cancel()
		if err != nil {
			errs++
			broken[i] = true
			continue
		}
		lat = append(lat, int64(time.Since(t0)))
	}
	return lat, errs
}

// restoreSyncStateSets grows every shrunk sync-state set back to every broker.
func restoreSyncStateSets(sets []*ctlSet, probs *problems) {
	for _, s := range sets {
		if s.ssEpoch%2 == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := s.alter(ctx, s.ids()); err != nil {
			probs.add("%s: restoring the sync-state set: %v", s.name, err)
		}
		cancel()
	}
}

// runHB is the heartbeat load phase: the fleet beats to every node for
// co.hbWindow while this process's CPU time is read (getrusage: the three
// nodes, and the sending side of the brokers in this process) and a probe
// sends a synchronous 904 to the leader every ctlProbeEvery from a random
// broker. With -hb-brokers the load comes mostly from a child process.
func runHB(g *ctlGroup, co ctlOptions, sets []*ctlSet, seed int64, log hclog.Logger) (*ctlHB, error) {
	leader, err := g.waitLeader(ctlLeaderWait)
	if err != nil {
		return nil, err
	}
	brokers := len(sets)*co.brokers + co.hbBrokers
	res := &ctlHB{Brokers: brokers, BeatsPerSNode: float64(brokers) / co.hbInterval.Seconds(), InChild: co.hbBrokers > 0}
	var child *fleetChild
	if co.hbBrokers > 0 {
		if child, err = startFleetChild(g, co, log); err != nil {
			return nil, err
		}
		defer child.stop()
		time.Sleep(co.hbInterval)
	}
	childCPU0 := child.cpuOrZero()
	rng := rand.New(rand.NewPCG(uint64(seed), 0x904))
	prof := startNodeProfile()
	cpu0, t0 := processCPU(), time.Now()
	var lat []int64
	for time.Since(t0) < co.hbWindow {
		s := sets[rng.IntN(len(sets))]
		b := s.brokers[rng.IntN(len(s.brokers))]
		ext := map[string]string{"clusterName": b.Cluster(), "brokerAddr": b.Addr(), "brokerName": b.Name(),
			"brokerId": strconv.FormatInt(b.ID(), 10), "epoch": strconv.Itoa(int(s.masterEpoch)), "maxOffset": "100",
			"confirmOffset": "100", "heartbeatTimeoutMills": strconv.FormatInt(co.hbTimeout.Milliseconds(), 10),
			"electionPriority": "2147483647"}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		p0 := time.Now()
		resp, err := b.Invoke(ctx, leader.remoting, remoting.BrokerHeartbeat, ext, nil)
		cancel()
		if err == nil && resp.Code == remoting.Success {
			lat = append(lat, int64(time.Since(p0)))
		}
		time.Sleep(ctlProbeEvery)
	}
	wall := time.Since(t0)
	cpu := processCPU() - cpu0
	res.ChildCPUPct = 100 * (child.cpuOrZero() - childCPU0).Seconds() / wall.Seconds()
	res.Latency904 = summarize(lat, wall)
	beats := res.BeatsPerSNode*float64(ctlNodes)*wall.Seconds() + float64(len(lat))
	res.ProcessCPUPct = 100 * cpu.Seconds() / wall.Seconds()
	res.CPUPerBeatUS = float64(cpu.Microseconds()) / beats
	res.LeaderCPUPctEst = res.CPUPerBeatUS * res.BeatsPerSNode / 1e4
	res.fillByNode(prof, leader.id, wall, co.hbProfile, log)
	return res, nil
}

// processCPU is this process's user plus system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
