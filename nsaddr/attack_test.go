package nsaddr

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// TestAttackMissingFileLogsOnce: with nsAddrFile gone (or a symbolic link
// loop), every GET /rocketmq/nsaddr logged a warning: anyone reaching the
// metrics listener wrote a log line per request. The failure is logged
// when it starts or changes, and the last good list still served.
func TestAttackMissingFileLogsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nsaddr")
	writeList(t, path, "10.0.0.1:9876")
	var logs lockedBuffer
	s, err := New("", path, hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Debug}))
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	for range 100 {
		require.Equal(t, "10.0.0.1:9876", s.List())
	}
	require.NoError(t, os.Symlink(path, path)) // a loop: another error
	for range 100 {
		require.Equal(t, "10.0.0.1:9876", s.List())
	}
	require.Equal(t, 2, logs.count("keeping the last good name server list"), logs.b.String())
	require.NoError(t, os.Remove(path))
	writeList(t, path, "10.0.0.2:9876")
	require.Equal(t, "10.0.0.2:9876", s.List())
}
