package certreload

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestWallStepKeepsCheckInterval steps the wall clock ±10 min just after
// a check: the files, rotated meanwhile, are looked at again once the
// check interval has passed, not earlier (+10 min) and not ten minutes
// later (-10 min).
func TestWallStepKeepsCheckInterval(t *testing.T) {
	for _, step := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			ca := testcerts.NewCA(t, "raft-ca")
			dir := t.TempDir()
			f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, dir, "n0", ca)
			r, err := New(f.Cert, f.Key, f.CA, testlog.New(t, "certreload"))
			require.NoError(t, err)
			clock := monotime.NewFake(time.Now())
			r.clock = clock
			r.MaybeReload() // a check: the next one is due DefaultCheckInterval later

			second := ca.Issue(t, testcerts.LeafOptions{})
			second.WriteFiles(t, dir, "n0", ca)
			clock.StepWall(step)
			r.MaybeReload()
			require.Zero(t, r.Reloads(), "a wall step of %s let a check in before the interval", step)
			clock.Advance(DefaultCheckInterval)
			r.MaybeReload()
			require.EqualValues(t, 1, r.Reloads(), "a wall step of %s held the rotation back past the interval", step)
			require.Equal(t, second.Cert.SerialNumber, r.Certificate().Leaf.SerialNumber)
		})
	}
}
