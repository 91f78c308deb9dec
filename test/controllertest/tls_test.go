//go:build embedded_controller

package controllertest

import (
	"crypto/tls"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// TestGoldenReplayOnClusterOverTLS: the Java 5.3 controller exchanges
// give the same replies over TLS, every node's remoting listener
// enforcing it.
func TestGoldenReplayOnClusterOverTLS(t *testing.T) {
	ca := testcerts.NewCA(t, "controller-test-ca")
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "server", ca)
	c := config.DefaultTLS()
	c.ServerMode, c.ServerCertPath, c.ServerKeyPath = config.TLSModeEnforcing, files.Cert, files.Key
	m, err := tlsconf.New(c, testlog.New(t, "tls"))
	require.NoError(t, err)
	t.Cleanup(m.Close)
	client := &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}
	replayGoldenOnCluster(t, remoting.ClientOptions{TLS: client}, controller.WithTLS(m))
}
