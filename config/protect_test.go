package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// nodeKeys name what a node is, where it listens, how large its frames and
// files are, and the limits protecting its memory: never updatable remotely (see docs/configuration.md, "Remote updates").
var nodeKeys = []string{
	"listenPort=9999", "bindAddress=10.1.2.3", "frameMaxLength=2097152",
	"metricsPromExporterPort=5999", "metricsPromExporterHost=10.1.2.3", "metricsExporterType=PROM",
	"controllerDLegerSelfId=n1", "controllerDLegerPeers=n1-127.0.0.1:1", "controllerRaftPeers=n1-127.0.0.1:2",
	"controllerDLegerGroup=g2", "controllerType=jRaft", "enableControllerInNamesrv=true",
	"mappedFileSize=1024", "serverSocketSndBufSize=1", "serverSocketRcvBufSize=1",
	// Limits protecting memory and connections.
	"serverChannelMaxPendingResponseBytes=1048576", "serverPartialFrameBudgetBytes=1048576",
	"serverChannelMaxIdleTimeSeconds=60", "unRegisterBrokerQueueCapacity=100",
	"clientRequestThreadPoolQueueCapacity=100", "defaultThreadPoolQueueCapacity=100",
	"controllerRequestThreadPoolQueueCapacity=100", "serverOnewaySemaphoreValue=10",
	"serverAsyncSemaphoreValue=10", "writeBufferHighWaterMark=1", "writeBufferLowWaterMark=1",
}

func TestNamesrvUpdateRefusesNodeKeys(t *testing.T) {
	// An empty configBlackList does not open the built-in list.
	c, err := Load(writeFile(t, "n.properties", "configBlackList=\ncontrollerDLegerSelfId=n0\n"))
	require.NoError(t, err)
	for _, body := range nodeKeys {
		_, err := c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}

func TestControllerUpdateRefusesNodeKeys(t *testing.T) {
	cc, err := LoadController(controllerFile(t, "configBlackList=\n"))
	require.NoError(t, err)
	require.NoError(t, cc.Validate())
	for _, body := range nodeKeys {
		_, err := cc.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}

func TestUpdateRefusesUnparsableValue(t *testing.T) {
	_, err := Default().ApplyUpdate([]byte("scanNotActiveBrokerInterval=notanumber"))
	require.ErrorIs(t, err, ErrRejectedUpdate)
	requireKeysNamed(t, err, "scanNotActiveBrokerInterval (notanumber)")
	cc, err := LoadController(controllerFile(t, ""))
	require.NoError(t, err)
	_, err = cc.ApplyUpdate([]byte("scanInactiveMasterInterval=x"))
	require.ErrorIs(t, err, ErrRejectedUpdate)
	requireKeysNamed(t, err, "scanInactiveMasterInterval (x)")
}

// TestNamesrvUpdateRestart: an accepted update is persisted to the -c file,
// the previous file is kept as <file>.bak, and a node loaded again from the
// same file is valid and has the new value.
func TestNamesrvUpdateRestart(t *testing.T) {
	path := writeFile(t, "namesrv.properties", "listenPort=9911\nconfigStorePath=self\n")
	c, err := Load(path)
	require.NoError(t, err)
	n, err := c.ApplyUpdate([]byte("orderMessageEnable=true"))
	require.NoError(t, err)
	require.NoError(t, n.Persist())
	bak, err := os.ReadFile(path + ".bak")
	require.NoError(t, err)
	require.Equal(t, "listenPort=9911\nconfigStorePath=self\n", string(bak))

	back, err := Load(path)
	require.NoError(t, err)
	require.NoError(t, back.Validate())
	require.True(t, back.OrderMessageEnable)
	require.Equal(t, 9911, back.ListenPort)
}

// TestNamesrvUpdateLeavesControllerKeys: UPDATE_NAMESRV_CONFIG does not
// write the controller's keys into the shared -c file (Java's 318 only
// persists NamesrvConfig and NettyServerConfig keys), so it cannot persist
// a controller value that would fail the next start.
func TestNamesrvUpdateLeavesControllerKeys(t *testing.T) {
	path := writeFile(t, "namesrv.properties", "scanInactiveMasterInterval=5000\nmyCustom=a\n")
	c, err := Load(path)
	require.NoError(t, err)
	n, err := c.ApplyUpdate([]byte("scanInactiveMasterInterval=0\nmyCustom=b\n"))
	require.NoError(t, err)
	require.NoError(t, n.Persist())
	back, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, int64(5000), back.Controller.ScanInactiveMasterInterval)
	require.Equal(t, "b", back.RawProperties()["myCustom"])
}
