package nsaddr

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestAttackMissingFileLogsOnce: with nsAddrFile gone (or a symbolic link
// loop), every GET /rocketmq/nsaddr logged a warning: anyone reaching the
// metrics listener wrote a log line per request. The failure is logged
// when it starts or changes, and the last good list still served.
func TestAttackMissingFileLogsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nsaddr")
	writeList(t, path, "10.0.0.1:9876")
	logger, logs := testlog.Capture(t, "nsaddr", hclog.Debug)
	s, err := New("", path, logger)
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	for range 100 {
		require.Equal(t, "10.0.0.1:9876", s.List())
	}
	require.NoError(t, os.Symlink(path, path)) // a loop: another error
	for range 100 {
		require.Equal(t, "10.0.0.1:9876", s.List())
	}
	require.Equal(t, 2, logs.Count("keeping the last good name server list"), logs.String())
	require.NoError(t, os.Remove(path))
	writeList(t, path, "10.0.0.2:9876")
	require.Equal(t, "10.0.0.2:9876", s.List())
}
