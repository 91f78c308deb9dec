package kv

import (
	"github.com/rmqgo/nameserver/internal/testlog"

	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// testLogger routes hclog output to t.Log.
func testLogger(t *testing.T) hclog.Logger { return testlog.New(t, t.Name()) }

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kvConfig.db")
	s, err := Open(path, testLogger(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, path
}
