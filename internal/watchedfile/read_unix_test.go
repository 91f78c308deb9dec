//go:build unix

package watchedfile

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadRefusesPipesAndDevicesAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, _, err := Read(fifo, 10) // returns at once: the open does not wait for a writer
	require.ErrorIs(t, err, ErrNotRegular)
	_, _, err = Read("/dev/zero", 10)
	require.ErrorIs(t, err, ErrNotRegular)
}
