package kv

import (
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// testLogger routes hclog output to t.Log.
func testLogger(t *testing.T) hclog.Logger {
	t.Helper()
	return hclog.New(&hclog.LoggerOptions{
		Name:   t.Name(),
		Level:  hclog.Debug,
		Output: tWriter{t},
	})
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kvConfig.db")
	s, err := Open(path, testLogger(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, path
}
