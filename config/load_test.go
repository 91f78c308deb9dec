package config

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const escapesFile = `# comment
! another comment
listenPort = 9877
bindAddress:10.0.0.1
productEnvName   center\
    -two
orderMessageEnable=  TRUE
customKey=tab\there \u00e9 ${user.home} \= end
unicodeKey\u0041=yes
emptyValue=
configStorePath=/should/be/ignored
scanNotActiveBrokerInterval=7000
`

func TestLoadEscapesContinuationsUnknownKeys(t *testing.T) {
	path := writeFile(t, "namesrv.properties", escapesFile)
	c, err := Load(path)
	require.NoError(t, err)
	require.NoError(t, c.Validate())

	require.Equal(t, 9877, c.ListenPort)
	require.Equal(t, "10.0.0.1", c.BindAddress)
	require.Equal(t, "center-two", c.ProductEnvName, "continuation joins lines, leading blanks dropped")
	require.True(t, c.OrderMessageEnable, "leading blanks dropped, booleans case-insensitive")
	require.Equal(t, "10.0.0.1:9877", c.ListenAddr())

	raw := c.RawProperties()
	require.Equal(t, "tab\there é ${user.home} = end", raw["customKey"], "no ${} expansion")
	require.Equal(t, "yes", raw["unicodeKeyA"])

	out := mustParse(t, c.Render())
	require.Equal(t, raw["customKey"], out["customKey"], "unknown keys are rendered")
	require.Equal(t, "", out["emptyValue"])
	require.Equal(t, "true", out["orderMessageEnable"], "typed value wins over raw")
}

func TestLoadConfigStorePathIsTheFile(t *testing.T) {
	path := writeFile(t, "namesrv.properties", escapesFile)
	c, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, path, c.ConfigStorePath, "Java: the -c file is the store path, whatever it says")
	require.Equal(t, path, mustParse(t, c.Render())["configStorePath"])
	require.Equal(t, filepath.Join(filepath.Dir(path), "namesrv.controller.properties"), c.Controller.ConfigStorePath,
		"the embedded controller keeps its own file next to the -c file, never the -c file itself")
}

func TestLoadSharedKeySetsBothConfigs(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", escapesFile))
	require.NoError(t, err)
	require.EqualValues(t, 7000, c.ScanNotActiveBrokerInterval)
	require.EqualValues(t, 7000, c.Controller.ScanNotActiveBrokerInterval)
	require.Equal(t, 9877, c.Controller.ListenPort, "the controller's netty config is a copy")
}

func TestLoadControllerStorePathFollowsType(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "controllerType=jRaft\n"))
	require.NoError(t, err)
	require.Equal(t, "jRaftController", lastElem(c.Controller.ControllerStorePath))
}

func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

func TestLoadParseErrorsReportedByValidate(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "listenPort=abc\nclusterTest=yes\nscanNotActiveBrokerInterval=1x\n"))
	require.NoError(t, err, "Load keeps going; Validate reports")
	require.Equal(t, 9876, c.ListenPort, "unparsable value leaves the default")
	err = c.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	requireKeysNamed(t, err, "listenPort (abc) is not a valid int", "clusterTest (yes) is not a boolean",
		"scanNotActiveBrokerInterval (1x) is not a valid long")
}

func TestLoadIntRangeIsJavaInt(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "serverWorkerThreads=3000000000\n"))
	require.NoError(t, err)
	requireKeysNamed(t, c.Validate(), "serverWorkerThreads (3000000000) is not a valid int")
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("/nonexistent/namesrv.properties")
	require.ErrorIs(t, err, ErrLoad)
	require.Contains(t, err.Error(), "/nonexistent/namesrv.properties")
}

func TestLoadBadEscape(t *testing.T) {
	_, err := Load(writeFile(t, "n.properties", "k=\\uZZZZ\n"))
	require.ErrorIs(t, err, ErrLoad)
}
