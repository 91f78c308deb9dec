package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStateBoundKeys: the replicated state's bounds have their defaults,
// are checked against numericBounds at load, and no update can change them
// (configBlackList emptied or not).
func TestStateBoundKeys(t *testing.T) {
	ours := mustParse(t, Default().ControllerProperties())
	require.Equal(t, "8192", ours["controllerMaxBrokerSets"])
	require.Equal(t, "64", ours["controllerMaxBrokersPerSet"])
	require.Equal(t, "253", ours["controllerMaxNameLength"])
	require.Equal(t, "8388608", ours["controllerMaxStateBytes"])

	cc, err := LoadController(controllerFile(t, "controllerMaxNameLength=256\ncontrollerMaxStateBytes=1073741824\n"))
	require.NoError(t, err)
	requireKeysNamed(t, cc.Validate(), "controllerMaxNameLength (256) must be between 1 and 255",
		"controllerMaxStateBytes (1073741824) must be between 65536 and 67108864")

	c, err := Load(writeFile(t, "n.properties", "configBlackList=\n"))
	require.NoError(t, err)
	cc, err = LoadController(controllerFile(t, "configBlackList=\n"))
	require.NoError(t, err)
	for _, body := range []string{"controllerMaxBrokerSets=1", "controllerMaxBrokersPerSet=1024",
		"controllerMaxNameLength=255", "controllerMaxStateBytes=67108864"} {
		_, err := c.ApplyControllerUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
		_, err = cc.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}
