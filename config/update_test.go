package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestApplyUpdateBlackList(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "configBlackList=configBlackList;configStorePath;kvConfigPath;productEnvName\n"))
	require.NoError(t, err)
	for _, body := range []string{
		"configStorePath=/tmp/evil",
		"kvConfigPath=/tmp/evil",
		"rocketmqHome=/tmp/evil",
		"configBlackList=",
		"productEnvName=other",                     // custom configBlackList entry
		"controllerStorePath=/tmp/evil",            // path-like, whatever configBlackList says
		"someNewLogPath=/tmp/evil",                 // any *Path key
		"storePathRootDir=/tmp/evil",               // any *Dir key
		"orderMessageEnable=true\nkvConfigPath=/x", // one bad key fails all
	} {
		_, err := c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
	require.False(t, c.OrderMessageEnable, "c is never modified")
}

func TestApplyUpdateBlackListFixedAtLoad(t *testing.T) {
	c := Default()
	c.ConfigBlackList = "configBlackList" // changing the field later has no effect
	_, err := c.ApplyUpdate([]byte("kvConfigPath=/x"))
	require.ErrorIs(t, err, ErrBlackListed)
	require.True(t, c.IsBlackListed("configStorePath"))
	require.False(t, c.IsBlackListed("orderMessageEnable"))
}

func TestApplyUpdateGood(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "listenPort=9876\nmyCustom=a\n"))
	require.NoError(t, err)
	n, err := c.ApplyUpdate([]byte("orderMessageEnable=true\nenableTopicList = false\nmyCustom=b\nbrandNew=x\n"))
	require.NoError(t, err)
	require.True(t, n.OrderMessageEnable)
	require.False(t, n.EnableTopicList)
	out := mustParse(t, n.Render())
	require.Equal(t, "b", out["myCustom"], "keys of the -c file are updated")
	require.NotContains(t, out, "brandNew", "other unknown keys are dropped (Java mergeIfExist)")
	require.False(t, c.OrderMessageEnable)
}

func TestApplyUpdateRejectsInvalidResult(t *testing.T) {
	c := Default()
	_, err := c.ApplyUpdate([]byte("scanNotActiveBrokerInterval=0"))
	require.ErrorIs(t, err, ErrRejectedUpdate)
	requireKeysNamed(t, err, "scanNotActiveBrokerInterval (0)")
}

func TestApplyUpdateBadProperties(t *testing.T) {
	_, err := Default().ApplyUpdate([]byte("k=\\uZZZZ"))
	require.ErrorIs(t, err, ErrBadProperties)
}

func TestApplyControllerUpdate(t *testing.T) {
	c := Default()
	n, err := c.ApplyControllerUpdate([]byte("enableElectUncleanMaster=true\nprocessReadEvent=true"))
	require.NoError(t, err)
	require.True(t, n.Controller.EnableElectUncleanMaster)
	require.True(t, n.Controller.ProcessReadEvent)
	require.False(t, c.Controller.EnableElectUncleanMaster)
	for _, body := range []string{"configStorePath=/x", "controllerStorePath=/x", "rocketmqHome=/x"} {
		_, err := c.ApplyControllerUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}

func TestPersistRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, "namesrv.properties", "listenPort=9911\nweird\\ key=C:\\\\dir\\\\x\\n two\nlead=\\  spaced\n")
	c, err := Load(src)
	require.NoError(t, err)
	c.ConfigStorePath = filepath.Join(dir, "sub", "namesrv.properties")
	require.NoError(t, c.Persist())

	back, err := Load(c.ConfigStorePath)
	require.NoError(t, err)
	require.NoError(t, back.Validate())
	require.Equal(t, 9911, back.ListenPort)
	require.Equal(t, `C:\dir\x`+"\n two", back.RawProperties()["weird key"])
	require.Equal(t, "  spaced", back.RawProperties()["lead"])
	require.Equal(t, mustParse(t, c.Render()), mustParse(t, back.Render()))

	entries, err := os.ReadDir(filepath.Join(dir, "sub"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temp file left behind")
}

func TestPersistEmptyPath(t *testing.T) {
	c := Default()
	c.ConfigStorePath = ""
	require.ErrorIs(t, c.Persist(), ErrPersist)
}
