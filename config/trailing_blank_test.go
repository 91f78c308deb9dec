package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTrailingBlankNotTrimmed: java.util.Properties strips the blanks
// before a value, not after, and MixAll.properties2Object trims only
// String values: "true " is no boolean (Java reads false) and "5 " no
// number (Java ignores the key). Both are refused here, naming the key,
// from the -c file and from UPDATE_NAMESRV_CONFIG; a string is trimmed.
func TestTrailingBlankNotTrimmed(t *testing.T) {
	for _, line := range []string{"supportActingMaster=true \n", "scanNotActiveBrokerInterval=5 \n"} {
		c, err := Load(writeFile(t, "namesrv.properties", line))
		require.NoError(t, err)
		require.ErrorIs(t, c.Validate(), ErrInvalid, line)
		_, err = Default().ApplyUpdate([]byte(line))
		require.ErrorIs(t, err, ErrInvalid, line)
	}
	c, err := Load(writeFile(t, "namesrv.properties", "supportActingMaster=  true\nproductEnvName= center  \n"))
	require.NoError(t, err)
	require.True(t, c.SupportActingMaster, "leading blanks are the loader's")
	require.Equal(t, "center", c.ProductEnvName, "strings are trimmed")
	n, err := Default().ApplyUpdate([]byte("productEnvName= center  \n"))
	require.NoError(t, err)
	require.Equal(t, "center", n.ProductEnvName)
}
