package certreload

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/internal/poll"
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

// TestNotYetValidRotationLoadsOnceValid: a rotated certificate that
// is not valid yet by this host's wall clock (the clock is behind, or was
// stepped back, when the rotation lands) is refused, rightly; but the
// refusal was remembered by the files' stamps, so once the wall clock
// reached NotBefore the certificate was still never loaded and the old
// one was served until it expired. A refusal that only the wall clock
// decided is tried again at each check (and logged once).
func TestNotYetValidRotationLoadsOnceValid(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	dir := t.TempDir()
	first := ca.Issue(t, testcerts.LeafOptions{})
	f := first.WriteFiles(t, dir, "n0", ca)
	log, lines := testlog.Capture(t, "certreload", hclog.Info)
	r, err := New(f.Cert, f.Key, f.CA, log)
	require.NoError(t, err)
	r.SetCheckInterval(0)

	notBefore := time.Now().Add(2 * time.Second) // x509 keeps whole seconds: 1 to 2 s ahead
	second := ca.Issue(t, testcerts.LeafOptions{NotBefore: notBefore})
	second.WriteFiles(t, dir, "n0", ca)
	r.MaybeReload()
	require.Zero(t, r.Reloads(), "not valid yet: refused")
	require.Equal(t, first.Cert.SerialNumber, r.Certificate().Leaf.SerialNumber)

	poll.Until(t, "the rotated certificate is loaded once the wall clock reaches its NotBefore", waitLimit, 20*time.Millisecond, poll.True(func() bool { r.MaybeReload(); return r.Reloads() == 1 }))
	require.Equal(t, second.Cert.SerialNumber, r.Certificate().Leaf.SerialNumber)
	require.Equal(t, 1, lines.Count("cannot be loaded"), "the refusal is logged once, not at every retry")
}
