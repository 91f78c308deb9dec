package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWarmupKeysLoad(t *testing.T) {
	d := Default()
	require.False(t, d.WarmupEnabled(), "off without peers")
	require.Equal(t, DefaultWarmupForwardSeconds, d.WarmupForwardSeconds)
	c, err := Load(writeFile(t, "n.properties",
		"warmupForwardPeers=10.0.0.2:9876; ns-3.example:9876\nwarmupForwardSeconds=120\n"))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	require.True(t, c.WarmupEnabled())
	peers, err := c.WarmupPeers()
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.2:9876", "ns-3.example:9876"}, peers)
	require.Equal(t, 2*time.Minute, c.WarmupWindow())
	require.Contains(t, string(c.Render()), "warmupForwardSeconds=120\n")
}

// Every broken rule is reported at once, naming the key.
func TestWarmupValidation(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "warmupForwardPeers=10.0.0.2\nwarmupForwardSeconds=601\n"))
	require.NoError(t, err)
	err = c.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	requireKeysNamed(t, err, "warmupForwardPeers", "warmupForwardSeconds (601)")
	c, err = Load(writeFile(t, "n.properties", "warmupForwardSeconds=-1\n"))
	require.NoError(t, err)
	requireKeysNamed(t, c.Validate(), "warmupForwardSeconds (-1)")
}

// Where lookups are forwarded is never updatable remotely.
func TestWarmupKeysNotUpdatable(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "configBlackList=\n"))
	require.NoError(t, err)
	for _, body := range []string{"warmupForwardPeers=10.0.0.9:9876", "warmupForwardSeconds=10"} {
		_, err := c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}
