//go:build embedded_controller

package main

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// tinyCtl is a ctlstorm of 20 sets with short phases; correctness only
// is asserted (speed belongs in make bench).
func tinyCtl(t *testing.T, args ...string) ctlOptions {
	t.Helper()
	o, err := parseFlags(append([]string{"-workload", "ctlstorm", "-sets", "20", "-ops", "4",
		"-ops-duration", "300ms", "-hb-window", "300ms", "-hb-interval", "300ms"}, args...), testWriter{t})
	require.NoError(t, err)
	return o.ctl
}

// runTiny runs co and checks the storm: every failed set got exactly one
// new master from its sync-state set and no live set changed master.
func runTiny(t *testing.T, co ctlOptions) *ctlResult {
	t.Helper()
	ctlLog := testlog.New(t, "ctl")
	ctlLog.SetLevel(hclog.Warn)
	res, err := runCtlStorm(co, 7, testlog.New(t, "loadgen"), ctlLog)
	require.NoError(t, err)
	require.True(t, res.Correct, "problems: %v", res.Problems)
	s := res.Storm
	require.NotNil(t, s)
	require.Equal(t, 7, s.FailedSets, "round(20 x 0.333)")
	require.Equal(t, s.FailedSets, s.Notified+s.LearnedBy1004)
	require.GreaterOrEqual(t, s.Raft.Entries, uint64(s.FailedSets), "one election entry per failed set at least")
	require.Positive(t, s.Raft.LogWrites)
	require.Positive(t, s.LastMS)
	return res
}

// TestCtlStormClose: the ops, heartbeat-load and close-storm phases of a
// 20-set fleet run and the storm is correct.
func TestCtlStormClose(t *testing.T) {
	res := runTiny(t, tinyCtl(t, "-ctl-phases", "ops,hb,storm"))
	require.Positive(t, res.Ops.Latency.Count)
	require.Zero(t, res.Ops.Errors)
	require.GreaterOrEqual(t, res.Ops.Raft.Entries, uint64(res.Ops.Latency.Count))
	require.Positive(t, res.HB.Latency904.Count)
	require.Positive(t, res.HB.CPUPerBeatUS)
}

// TestCtlStormSilenceKillLeader: the masters stop beating and the Raft
// leader is stopped while the elections are in flight; every set still
// ends correct.
func TestCtlStormSilenceKillLeader(t *testing.T) {
	res := runTiny(t, tinyCtl(t, "-mode", "silence", "-kill-leader", "-hb-timeout", "2s", "-notice-wait", "2s"))
	t.Logf("storm: %+v", *res.Storm)
	require.NotEmpty(t, res.Storm.LeaderKilled)
	require.NotEqual(t, res.Storm.LeaderKilled, res.Storm.NewLeader)
	require.NotNil(t, res.Storm.AfterTimeout)
}
