package acl

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

// TestWallStepKeepsDenialLogOncePerMinute: the denial log's "once
// per access key and minute" was decided on the wall clock's minute
// (time.Truncate, which drops Go's monotonic reading): every wall step
// (±10 min here) began a new minute and logged every key again. The
// minute is a monotonic one: a step logs nothing more, and a key is
// logged again once a minute has really passed.
func TestWallStepKeepsDenialLogOncePerMinute(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeFile(t, path, testAccounts)
	log, lines := testlog.Capture(t, "acl", hclog.Warn)
	clock := monotime.NewFake(time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC))
	opts := Options{Path: path, Logger: log, PollInterval: time.Hour}
	withClock(&opts, clock)
	a, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(a.Close)
	deny := func() int {
		resp := a.Authorize(nil, signed(remoting.PutKVConfig, "strangerKey", "x"))
		require.NotNil(t, resp)
		require.Equal(t, remoting.NoPermission, resp.Code)
		return lines.Count("request denied")
	}
	require.Equal(t, 1, deny(), "the first denial is logged")
	clock.StepWall(-10 * time.Minute)
	require.Equal(t, 1, deny(), "-10 min wall step: the same key in the same minute")
	clock.StepWall(20 * time.Minute)
	require.Equal(t, 1, deny(), "+10 min wall step: the same key in the same minute")
	clock.Advance(time.Minute - time.Nanosecond)
	require.Equal(t, 1, deny(), "a minute has not passed")
	clock.Advance(time.Nanosecond)
	require.Equal(t, 2, deny(), "a minute has passed: logged again")
}

// withClock injects the clock of the denial log.
func withClock(o *Options, c monotime.Clock) { o.clock = c }
