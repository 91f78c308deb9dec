//go:build embedded_controller

package controller

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// wallSteps are the wall-clock steps every clock-step test applies: NTP
// stepping a clock ten minutes either way (a VM resume, a bad RTC).
var wallSteps = []time.Duration{10 * time.Minute, -10 * time.Minute}

// TestWallStepKeepsHeartbeatsAndExpiresOnTime steps the wall clock of the
// heartbeat table ±10 min a second after a broker's last beat: it stays
// active and no scan reports it, and, beating no more, it expires once
// its timeout has passed, step or not.
func TestWallStepKeepsHeartbeatsAndExpiresOnTime(t *testing.T) {
	for _, step := range wallSteps {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			e := newHBEnv(t)
			require.NoError(t, e.m.OnHeartbeat(beat(1, "a1", 1, 10), 1)) // 3000 ms timeout
			e.clock.Advance(time.Second)
			e.clock.StepWall(step)
			require.True(t, e.m.IsActive("c", "b", 1), "a wall step of %s made a beating broker inactive", step)
			require.Empty(t, e.m.Scan(), "a wall step of %s expired a beating broker", step)

			e.clock.Advance(2 * time.Second) // 3 s since its last beat, before the step
			require.True(t, e.m.IsActive("c", "b", 1), "still within its timeout")
			require.Empty(t, e.m.Scan())
			e.clock.Advance(time.Millisecond)
			require.False(t, e.m.IsActive("c", "b", 1), "a wall step of %s kept a silent broker alive", step)
			require.Len(t, e.m.Scan(), 1, "a silent broker expires on time after a wall step of %s", step)
		})
	}
}

// TestWallStepKeepsViewWarmup steps the wall clock ±10 min inside a
// node's warm-up: it neither ends early (a new leader would fail over
// masters not heard from yet) nor lasts longer.
func TestWallStepKeepsViewWarmup(t *testing.T) {
	for _, step := range wallSteps {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			e := newHBEnv(t)
			e.clock.Advance(time.Second)
			e.clock.StepWall(step)
			require.False(t, e.m.viewComplete(), "a wall step of %s ended the warm-up", step)
			e.clock.Advance(viewWarmup - 2*time.Second)
			require.False(t, e.m.viewComplete())
			e.clock.Advance(time.Second)
			require.True(t, e.m.viewComplete(), "a wall step of %s made the warm-up longer", step)
		})
	}
}

// TestWallStepFailsNoMasterOverAndADeadOneOnTime runs a one-node
// Controller on a fake clock: master b/1 beats, the leader's wall clock
// steps ±10 min, the heartbeat scan and the inactive-master scan find
// nothing and broker 1 stays master; broker 1, silent since its beat
// before the step, is failed over once its timeout has passed.
func TestWallStepFailsNoMasterOverAndADeadOneOnTime(t *testing.T) {
	for _, step := range wallSteps {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			clock := newFakeClock()
			ic := newControllersWith(t, 1, nil, []Option{WithClock(clock)})
			leader := ic.leader(t)
			b1 := dialAttack(t, leader.Addr())
			resp := b1.call(t, remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c",
				"brokerName": "b", "appliedBrokerId": "1", "registerCheckCode": "127.0.0.1:10911;1"})
			require.Equal(t, codeSuccess, resp.Code, resp.Remark)
			require.True(t, b1.beat("1"))
			resp = b1.call(t, remoting.ControllerElectMaster, map[string]string{"clusterName": "c",
				"brokerName": "b", "brokerId": "1", "designateElect": "false"})
			require.Equal(t, codeSuccess, resp.Code, resp.Remark)
			isMaster := func() (ok bool) {
				leader.fsm.read(func(s *state) { ok = s.IsMaster("b", 1) })
				return ok
			}
			require.True(t, isMaster())

			clock.Advance(time.Second)
			clock.StepWall(step)
			require.Empty(t, leader.hb.Scan(), "a wall step of %s expired the master's heartbeat", step)
			var reelect []string
			leader.fsm.read(func(s *state) { reelect = s.BrokerSetsNeedingReelect(leader.hb) })
			require.Empty(t, reelect, "a wall step of %s made the inactive-master scan elect anew", step)
			require.True(t, isMaster(), "a wall step of %s failed the master over", step)

			// broker 1 dies: its last beat was before the step
			clock.Advance(time.Duration(defaultHeartbeatTimeoutMillis)*time.Millisecond - time.Second)
			require.Empty(t, leader.hb.Scan(), "within its timeout")
			clock.Advance(time.Millisecond)
			require.Len(t, leader.hb.Scan(), 1, "a dead master is found after a wall step of %s", step)
			require.Eventually(t, func() bool { return !isMaster() }, 5*time.Second, 10*time.Millisecond,
				"a dead master stays master after a wall step of %s", step)
			t.Logf("wall step %s: no failover while broker 1 beat; failed over once its 10 s passed (epochs %v)",
				step, leader.MasterEpochs())
		})
	}
}
