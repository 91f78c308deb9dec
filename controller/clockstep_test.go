//go:build embedded_controller

package controller

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/remoting"
)

// wallSteps are the wall-clock steps every clock-step test applies: NTP
// stepping a clock ten minutes either way (a VM resume, a bad RTC).
var wallSteps = []time.Duration{10 * time.Minute, -10 * time.Minute}

// TestWallStepFailsNoMasterOverAndADeadOneOnTime runs a one-node
// Controller on a fake clock: master b/1 beats, the leader's wall clock
// steps ±10 min, the heartbeat scan and the inactive-master scan find
// nothing and broker 1 stays master; broker 1, silent since its beat
// before the step, is failed over once its timeout has passed.
func TestWallStepFailsNoMasterOverAndADeadOneOnTime(t *testing.T) {
	for _, step := range wallSteps {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			clock := newFakeClock()
			ic := newCluster(t, 1, withOptions(WithClock(clock)))
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
			clock.Advance(time.Duration(liveness.DefaultTimeoutMillis)*time.Millisecond - time.Second)
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
