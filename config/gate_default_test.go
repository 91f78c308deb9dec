//go:build !embedded_controller

package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGateWithoutTag(t *testing.T) {
	require.False(t, ControllerCompiledIn)
	c, err := Load(controllerFile(t, "enableControllerInNamesrv=true\n"))
	require.NoError(t, err)
	err = c.Validate()
	require.ErrorIs(t, err, ErrControllerNotCompiledIn)
	require.ErrorIs(t, err, ErrInvalid)
	requireKeysNamed(t, err, "enableControllerInNamesrv (true) requires a binary built with -tags embedded_controller")
}

func TestGateRemoteEnableRefused(t *testing.T) {
	_, err := Default().ApplyUpdate([]byte("enableControllerInNamesrv=true"))
	require.ErrorIs(t, err, ErrBlackListed, "what a node is cannot be changed remotely")
}
