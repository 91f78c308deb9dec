package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMemoryBoundKeys(t *testing.T) {
	ours := mustParse(t, Default().Render())
	require.Equal(t, "4194304", ours["serverChannelMaxPendingResponseBytes"])
	require.Equal(t, "268435456", ours["serverPartialFrameBudgetBytes"])

	c, err := Load(writeFile(t, "n.properties",
		"serverChannelMaxPendingResponseBytes=1048576\nserverPartialFrameBudgetBytes=0\n"))
	require.NoError(t, err)
	require.Equal(t, int64(MiB), c.ServerChannelMaxPendingResponseBytes)
	err = c.Validate()
	requireKeysNamed(t, err, "serverPartialFrameBudgetBytes (0) must be between 1048576 and 4294967296")
	require.Equal(t, 1, countLines(err))
}
