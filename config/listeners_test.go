package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSideListenerKeys(t *testing.T) {
	ours := mustParse(t, Default().Render())
	for key, want := range map[string]string{
		"metricsMaxConnections": "128", "metricsReadHeaderTimeoutSeconds": "5",
		"metricsReadTimeoutSeconds": "10", "metricsWriteTimeoutSeconds": "30",
		"metricsIdleTimeoutSeconds": "60", "metricsMaxHeaderBytes": "16384",
	} {
		require.Equal(t, want, ours[key], key)
	}
	require.Equal(t, "128", mustParse(t, Default().ControllerProperties())["controllerRaftMaxInboundConnections"])

	c, err := Load(writeFile(t, "n.properties",
		"metricsMaxConnections=0\nmetricsIdleTimeoutSeconds=0\nmetricsMaxHeaderBytes=100\n"))
	require.NoError(t, err)
	err = c.Validate()
	requireKeysNamed(t, err, "metricsMaxConnections (0) must be between 1 and 65536",
		"metricsIdleTimeoutSeconds (0) must be between 1 and 3600",
		"metricsMaxHeaderBytes (100) must be between 4096 and 1048576")

	cc, err := LoadController(writeFile(t, "c.properties", "controllerRaftMaxInboundConnections=1\n"))
	require.NoError(t, err)
	requireKeysNamed(t, cc.Validate(), "controllerRaftMaxInboundConnections (1) must be between 16 and 65536")
}

func TestSideListenerKeysAreNotRemotelyUpdatable(t *testing.T) {
	c := Default()
	for _, key := range []string{"metricsMaxConnections", "metricsReadHeaderTimeoutSeconds", "metricsReadTimeoutSeconds",
		"metricsWriteTimeoutSeconds", "metricsIdleTimeoutSeconds", "metricsMaxHeaderBytes"} {
		require.True(t, c.IsBlackListed(key), key)
	}
	require.True(t, c.Controller.IsBlackListed("controllerRaftMaxInboundConnections"))
}
