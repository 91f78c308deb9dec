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

func TestMaxConnectionsKey(t *testing.T) {
	require.Equal(t, "10000", mustParse(t, Default().Render())["serverMaxConnections"])
	c, err := Load(writeFile(t, "n.properties", "serverMaxConnections=0\n"))
	require.NoError(t, err)
	requireKeysNamed(t, c.Validate(), "serverMaxConnections (0) must be between 1 and 1048576")
}
