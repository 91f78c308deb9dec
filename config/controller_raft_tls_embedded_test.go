//go:build embedded_controller

package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEmbeddedRaftTLSRules(t *testing.T) {
	c, err := Load(controllerFile(t, "enableControllerInNamesrv=true\ncontrollerRaftTlsEnable=true\n"+
		"controllerRaftTlsCertPath=/nonexistent/n0.crt\n"))
	require.NoError(t, err)
	err = c.Validate()
	requireKeysNamed(t, err, "controllerRaftTlsKeyPath is missing", "controllerRaftTlsTrustCertPath is missing")
	require.Equal(t, 2, countLines(err))

	props, _ := raftTLSProps(t)
	c, err = Load(controllerFile(t, "enableControllerInNamesrv=true\n"+props))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
}
