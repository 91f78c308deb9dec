package integration

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
	"github.com/rmqgo/nameserver/tlsconf"
)

// tlsPKI is a CA and a server certificate (127.0.0.1) written as files.
type tlsPKI struct {
	ca    *testcerts.CA
	files testcerts.Files
}

func newTLSPKI(t *testing.T) *tlsPKI {
	ca := testcerts.NewCA(t, "it-ca")
	return &tlsPKI{ca: ca, files: ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "server", ca)}
}

func (p *tlsPKI) client() *tls.Config {
	return &tls.Config{RootCAs: p.ca.Pool(), MinVersion: tls.VersionTLS12}
}

// tlsBroker is a fake broker that accepts TLS and plaintext (permissive)
// and registers with the NameServer over TLS, as a Java broker with
// tls.enable=true does.
func tlsBroker(t *testing.T, p *tlsPKI, ns string, topics ...fakebroker.TopicConfig) *fakebroker.Broker {
	c := config.DefaultTLS()
	c.ServerCertPath, c.ServerKeyPath = p.files.Cert, p.files.Key
	m, err := tlsconf.New(c, testLogger(t, "broker-tls"))
	require.NoError(t, err)
	t.Cleanup(m.Close)
	b := newBroker(t, fakebroker.Config{NameServers: []string{ns}, Topics: topics,
		ConnHooks: []remoting.ConnHook{m.Hook()}, TLS: p.client()})
	require.NoError(t, b.RegisterAll(ctxT(t)))
	return b
}

// TestClientGoOverTLS: rocketmq-client-go with WithTls(true) (admin and
// producer) looks routes up through the namesrv binary in permissive and
// enforcing mode, set by a -D flag with the certificate in the -c file;
// plaintext works on the permissive one and is refused by the enforcing
// one.
func TestClientGoOverTLS(t *testing.T) {
	t.Cleanup(clientGoPlaintextAgain)
	for _, mode := range []string{config.TLSModePermissive, config.TLSModeEnforcing} {
		t.Run(mode, func(t *testing.T) {
			p := newTLSPKI(t)
			ns := startBinary(t, map[string]string{"tls.server.certPath": p.files.Cert, "tls.server.keyPath": p.files.Key},
				"-Dtls.server.mode="+mode).addr
			b := tlsBroker(t, p, ns, fakebroker.Topic("TlsTopic", 4))

			adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{ns})), admin.WithTls(true))
			require.NoError(t, err)
			t.Cleanup(func() { _ = adm.Close() })
			mqs, err := adm.FetchPublishMessageQueues(ctxT(t), "TlsTopic")
			require.NoError(t, err)
			require.Len(t, mqs, 4)

			sendOverTLS(t, ns, b)

			c, err := remoting.Dial(ctxT(t), ns, remoting.ClientOptions{})
			require.NoError(t, err)
			defer c.Close()
			_, _, err = getRoute(ctxT(t), c, "TlsTopic")
			if mode == config.TLSModeEnforcing {
				require.Error(t, err, "plaintext is refused by an enforcing server")
				return
			}
			require.NoError(t, err)
		})
	}
}

// clientGoPlaintextAgain undoes WithTls(true): rocketmq-client-go's
// WithTls writes through a pointer to its package-level
// remote.DefaultRemotingClientConfig, so without this every later client in
// the process would speak TLS (TestClientGoResolvesNameServerDomain sent a
// ClientHello to a plaintext server when it ran after this file's tests).
func clientGoPlaintextAgain() {
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{"127.0.0.1:1"})), admin.WithTls(false))
	if err == nil {
		_ = adm.Close()
	}
}

func sendOverTLS(t *testing.T, ns string, b *fakebroker.Broker) {
	p, err := producer.NewDefaultProducer(producer.WithNameServer([]string{ns}), producer.WithRetry(2),
		producer.WithGroupName("it_tls_producer"), producer.WithInstanceName(instanceName(t)),
		producer.WithSendMsgTimeout(5*time.Second), producer.WithTls(true))
	require.NoError(t, err)
	require.NoError(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })
	res, err := p.SendSync(ctxT(t), primitive.NewMessage("TlsTopic", []byte("over tls")))
	require.NoError(t, err)
	require.Equal(t, primitive.SendOK, res.Status, res.String())
	require.Equal(t, b.BrokerName(), res.MessageQueue.BrokerName)
}

// TestBinaryMutualTLS: with tls.server.need.client.auth=require and
// tls.server.authClient=true (from tls.config.file), a client without a
// certificate is refused and one with a certificate of the trusted CA is
// served.
func TestBinaryMutualTLS(t *testing.T) {
	p := newTLSPKI(t)
	tlsFile := filepath.Join(t.TempDir(), "tls.properties")
	writeProps(t, tlsFile, map[string]string{
		"tls.server.mode": "enforcing", "tls.server.need.client.auth": "require", "tls.server.authClient": "true",
		"tls.server.certPath": p.files.Cert, "tls.server.keyPath": p.files.Key, "tls.server.trustCertPath": p.files.CA,
	})
	ns := startBinary(t, nil, "-Dtls.config.file="+tlsFile).addr
	_, _, err := routeOver(t, ns, p.client())
	require.Error(t, err, "no client certificate")
	withCert := p.client()
	withCert.Certificates = []tls.Certificate{p.ca.Issue(t, testcerts.LeafOptions{CommonName: "client"}).TLS(t)}
	code, _, err := routeOver(t, ns, withCert)
	require.NoError(t, err)
	require.EqualValues(t, remoting.TopicNotExist, code)
}

func routeOver(t *testing.T, ns string, cfg *tls.Config) (int32, any, error) {
	c, err := remoting.Dial(ctxT(t), ns, remoting.ClientOptions{TLS: cfg})
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	code, rd, err := getRoute(ctxT(t), c, "NoSuchTopic")
	return code, rd, err
}

// TestBinaryRefusesBadTLSSettings: a bad file or a missing named
// tls.config.file stops startup with the key and the file named.
func TestBinaryRefusesBadTLSSettings(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage.pem")
	require.NoError(t, os.WriteFile(garbage, []byte("not a certificate"), 0o600))
	missing := filepath.Join(t.TempDir(), "missing.properties")
	for _, tc := range []struct {
		args  []string
		names []string
	}{
		{[]string{"-Dtls.server.certPath=" + garbage, "-Dtls.server.keyPath=" + garbage}, []string{"tls.server.certPath", garbage}},
		{[]string{"-Dtls.config.file=" + missing}, []string{"tls.config.file", missing}},
		{[]string{"-Dtls.server.mode=strict"}, []string{"tls.server.mode (strict)"}},
	} {
		p := namesrvProps(t)
		code, _, stderr := runBinary(t, append([]string{"-c", p}, tc.args...)...)
		require.Equal(t, 1, code)
		for _, n := range tc.names {
			require.Contains(t, stderr, n)
		}
	}
}

// namesrvProps writes a config like startBinary's and returns its path.
func namesrvProps(t *testing.T) string {
	dir := t.TempDir()
	path := filepath.Join(dir, "namesrv.properties")
	writeProps(t, path, map[string]string{"bindAddress": "127.0.0.1", "listenPort": "0",
		"kvConfigPath": filepath.Join(dir, "kvConfig.json"), "configStorePath": path})
	return path
}
