package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnvNamesKeysInAnySpelling(t *testing.T) {
	props, err := EnvProps([]string{
		"NAMESRV_LISTENPORT=9877", "NAMESRV_scan_not_active_broker_interval=1000",
		"NAMESRV_ORDER_MESSAGE_ENABLE=true", "PATH=/bin", "OTHER_LISTENPORT=1", "NAMESRV_KVCONFIGPATH=/data/kv.json",
	}, NamesrvEnvPrefix, namesrvKeys())
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"listenPort": "9877", "scanNotActiveBrokerInterval": "1000",
		"orderMessageEnable": "true", "kvConfigPath": "/data/kv.json",
	}, props)
}

// Kubernetes injects X_SERVICE_HOST, X_PORT... for a Service named like
// the prefix; the log level and NAMESRV_ADDR (clients' variable) are not
// properties either.
func TestEnvSkipsWhatIsNoProperty(t *testing.T) {
	props, err := EnvProps([]string{
		"NAMESRV_LOG_LEVEL=debug", "NAMESRV_ADDR=10.0.0.1:9876",
		"NAMESRV_SERVICE_HOST=10.96.0.10", "NAMESRV_SERVICE_PORT=9876", "NAMESRV_SERVICE_PORT_REMOTING=9876",
		"NAMESRV_PORT=tcp://10.96.0.10:9876", "NAMESRV_PORT_9876_TCP=tcp://10.96.0.10:9876",
		"NAMESRV_PORT_9876_TCP_ADDR=10.96.0.10", "NAMESRV_PORT_9876_TCP_PORT=9876", "NAMESRV_PORT_9876_TCP_PROTO=tcp",
	}, NamesrvEnvPrefix, namesrvKeys())
	require.NoError(t, err)
	require.Empty(t, props)
}

func TestEnvUnknownAndDuplicateNamed(t *testing.T) {
	_, err := EnvProps([]string{"NAMESRV_LISTEN_PROT=1", "NAMESRV_LISTENPORT=1", "NAMESRV_LISTEN_PORT=2"},
		NamesrvEnvPrefix, namesrvKeys())
	require.ErrorIs(t, err, ErrLoad)
	require.Contains(t, err.Error(), "NAMESRV_LISTEN_PROT names no key")
	require.Contains(t, err.Error(), "NAMESRV_LISTENPORT and NAMESRV_LISTEN_PORT both set listenPort")
}

// No two keys differ only in case or underscores, so every variable names
// one key at most.
func TestEnvKeysFoldApart(t *testing.T) {
	for _, keys := range [][]string{namesrvKeys(), controllerKeys()} {
		seen := map[string]string{}
		for _, k := range keys {
			f := foldEnvName(k)
			require.Empty(t, seen[f], "%s and %s fold alike", seen[f], k)
			seen[f] = k
		}
	}
}

func TestLoadWithEnvOverFileAndWithoutFile(t *testing.T) {
	path := writeFile(t, "n.properties", "listenPort=9876\nserverWorkerThreads=4\n")
	env := []string{"NAMESRV_LISTENPORT=9877", "NAMESRV_METRICS_EXPORTER_TYPE=PROM", "NAMESRV_CONTROLLERDLEGERSELFID=n1"}
	c, err := LoadWithEnv(path, env)
	require.NoError(t, err)
	require.Equal(t, 9877, c.ListenPort, "the environment wins over the file")
	require.Equal(t, 4, c.ServerWorkerThreads, "the file still counts")
	require.Equal(t, "PROM", c.MetricsExporterType)
	require.Equal(t, "n1", c.Controller.ControllerDLegerSelfId, "the embedded controller reads the same keys")
	require.Equal(t, path, c.ConfigStorePath)

	c, err = LoadWithEnv("", env)
	require.NoError(t, err)
	require.Equal(t, 9877, c.ListenPort)
	require.Equal(t, Default().ConfigStorePath, c.ConfigStorePath)
	require.Contains(t, string(c.Render()), "listenPort=9877\n")

	c, err = LoadWithEnv("", []string{"NAMESRV_LISTENPORT=abc"})
	require.NoError(t, err, "a bad value is Validate's to report")
	requireKeysNamed(t, c.Validate(), "listenPort")

	_, err = LoadWithEnv(path, []string{"NAMESRV_NOPE=1"})
	require.ErrorContains(t, err, "NAMESRV_NOPE")
}

func TestLoadControllerWithEnv(t *testing.T) {
	cc, err := LoadControllerWithEnv(controllerFile(t, ""), []string{
		"CONTROLLER_ENABLE_ELECT_UNCLEAN_MASTER=true", "CONTROLLER_LOG_LEVEL=debug", "NAMESRV_NOPE=1"})
	require.NoError(t, err)
	require.True(t, cc.EnableElectUncleanMaster)
	_, err = LoadControllerWithEnv(controllerFile(t, ""), []string{"CONTROLLER_ORDERMESSAGEENABLE=true"})
	require.ErrorContains(t, err, "CONTROLLER_ORDERMESSAGEENABLE names no key", "a NameServer key")
}

// A value set by an environment variable that does not parse names the
// variable, with or without a -c file; one of the file does not.
func TestEnvParseErrorNamesVariable(t *testing.T) {
	env := []string{"NAMESRV_LISTEN_PORT=abc", "NAMESRV_LOG_FORMAT=json"}
	for _, path := range []string{"", writeFile(t, "n.properties", "orderMessageEnable=maybe\n")} {
		c, err := LoadWithEnv(path, env)
		require.NoError(t, err)
		err = c.Validate()
		require.ErrorIs(t, err, ErrInvalid)
		require.Contains(t, err.Error(), "listenPort (abc) is not a valid int (set by environment variable NAMESRV_LISTEN_PORT)")
		require.Equal(t, 1, strings.Count(err.Error(), "NAMESRV_LISTEN_PORT"), err.Error())
		if path != "" {
			require.Contains(t, err.Error(), "orderMessageEnable (maybe) is not a boolean (true or false)\n")
		}
	}
	cc, err := LoadControllerWithEnv(writeFile(t, "c.properties", "controllerDLegerSelfId=n0\n"),
		[]string{"CONTROLLER_ELECT_MASTER_MAX_RETRY_COUNT=x"})
	require.NoError(t, err)
	require.ErrorContains(t, cc.Validate(), "(set by environment variable CONTROLLER_ELECT_MASTER_MAX_RETRY_COUNT)")
}
