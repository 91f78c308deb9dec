package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenFile is the -c file the golden Java NameServer was started with.
func goldenFile(t *testing.T) string {
	store := filepath.Join(t.TempDir(), "ctl-store")
	return writeFile(t, "namesrv.conf", fmt.Sprintf(`listenPort=9876
bindAddress=127.0.0.1
enableControllerInNamesrv=true
controllerDLegerGroup=group1
controllerDLegerPeers=n0-127.0.0.1:9878
controllerDLegerSelfId=n0
controllerStorePath=%s
`, store))
}

func readGolden(t *testing.T, name string) map[string]string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return mustParse(t, data)
}

// placeholder values differ by machine; jraftConfig is a Java object id.
func placeholder(key, v string) bool {
	return key == "jraftConfig" || strings.Contains(v, "<") || strings.Contains(v, "${")
}

func requireMatchesGolden(t *testing.T, golden, ours map[string]string) {
	t.Helper()
	for k, want := range golden {
		got, ok := ours[k]
		require.True(t, ok, "key %s missing from our output", k)
		if !placeholder(k, want) {
			require.Equal(t, want, got, "key %s", k)
		}
	}
}

func TestRenderMatchesJavaGolden(t *testing.T) {
	c, err := Load(goldenFile(t))
	require.NoError(t, err)
	requireMatchesGolden(t, readGolden(t, "namesrv-config-java-5.3.properties"), mustParse(t, c.Render()))
}

func TestControllerPropertiesMatchJavaGolden(t *testing.T) {
	c, err := Load(goldenFile(t))
	require.NoError(t, err)
	ours := mustParse(t, c.ControllerProperties())
	requireMatchesGolden(t, readGolden(t, "controller-config-java-5.3.properties"), ours)
	require.Equal(t, "false", ours["isProcessReadEvent"])
	require.Equal(t, "9878", ours["listenPort"], "DLedger's self peer port")
	require.Equal(t, JraftConfigValue, ours["jraftConfig"])
}

// Keys the golden file set through the -c file rather than by default.
var fromGoldenFile = map[string]bool{
	"bindAddress": true, "enableControllerInNamesrv": true, "controllerDLegerGroup": true,
	"controllerDLegerPeers": true, "controllerDLegerSelfId": true, "listenPort": true,
}

func TestDefaultsMatchJavaGolden(t *testing.T) {
	ours := mustParse(t, Default().Render())
	for k, want := range readGolden(t, "namesrv-config-java-5.3.properties") {
		if fromGoldenFile[k] || strings.HasPrefix(k, "controller") || placeholder(k, want) {
			continue
		}
		require.Equal(t, want, ours[k], "default of %s", k)
	}
	require.Equal(t, "9876", ours["listenPort"])
	require.Equal(t, "0.0.0.0", ours["bindAddress"])
	require.Equal(t, "67108864", ours["frameMaxLength"])
}

func TestControllerDefaultsMatchJavaGolden(t *testing.T) {
	ours := mustParse(t, Default().ControllerProperties())
	for k, want := range readGolden(t, "controller-config-java-5.3.properties") {
		if fromGoldenFile[k] || placeholder(k, want) || k == "controllerStorePath" {
			continue
		}
		require.Equal(t, want, ours[k], "default of %s", k)
	}
}

func TestDefaultPaths(t *testing.T) {
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	c := Default()
	require.Equal(t, filepath.Join(home, "namesrv", "kvConfig.json"), c.KVConfigPath)
	require.Equal(t, filepath.Join(home, "namesrv", "namesrv.properties"), c.ConfigStorePath)
	require.Equal(t, filepath.Join(home, "DLedgerController"), c.Controller.ControllerStorePath)
	require.Equal(t, filepath.Join(home, "controller", "controller.properties"), c.Controller.ConfigStorePath)
	require.Equal(t, "0.0.0.0:9876", c.ListenAddr())
}
