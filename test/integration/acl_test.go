package integration

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// aclAccounts: one account per role (plain_acl.yml's layout).
const aclAccounts = `
accounts:
  - {accessKey: itAdmin01, secretKey: itAdminSecret, admin: true}
  - {accessKey: itBroker01, secretKey: itBrokerSecret, role: broker}
  - {accessKey: itReader01, secretKey: itReaderSecret}
`

// startACLServer starts an in-process NameServer with aclEnable=true over
// accounts text; it returns the server address and the accounts file.
func startACLServer(t *testing.T, accounts string, anonymousRead bool) (string, string) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(accounts), 0o600))
	srv := namesrvtest.Start(t, namesrvtest.WithConfig(func(c *config.NamesrvConfig) {
		c.AclEnable, c.AclConfigPath, c.AclAnonymousRead = true, path, anonymousRead
	}))
	return srv.Addr().String(), path
}

func signer(ak, sk string) func(*remoting.Command) {
	return func(req *remoting.Command) { acl.Sign(req, ak, sk, "") }
}

// TestACLBrokerRegistersClientGoReads: a broker-role account registers a
// broker (an unsigned or read-only registration gets 16), and
// rocketmq-client-go reads its routes with the right credentials only.
func TestACLBrokerRegistersClientGoReads(t *testing.T) {
	addr, _ := startACLServer(t, aclAccounts, false)
	topics := []fakebroker.TopicConfig{fakebroker.Topic("AclTopic", 4)}

	anon := newBroker(t, fakebroker.Config{NameServers: []string{addr}, Topics: topics, BrokerName: "anon"})
	resp, err := anon.Register(ctxT(t), addr)
	require.Error(t, err)
	require.Equal(t, remoting.NoPermission, resp.Code, resp.Remark)
	require.Contains(t, resp.Remark, "broker permission")
	reader := newBroker(t, fakebroker.Config{NameServers: []string{addr}, Topics: topics, BrokerName: "reader",
		Sign: signer("itReader01", "itReaderSecret")})
	resp, err = reader.Register(ctxT(t), addr)
	require.Error(t, err)
	require.Contains(t, resp.Remark, `AccessKey "itReader01"`)

	b := newBroker(t, fakebroker.Config{NameServers: []string{addr}, Topics: topics,
		Sign: signer("itBroker01", "itBrokerSecret")})
	require.NoError(t, b.RegisterAll(ctxT(t)))
	require.NoError(t, b.Heartbeat(ctxT(t), addr))

	for _, tc := range []struct {
		name string
		cred primitive.Credentials
		ok   bool
	}{
		{"right key", primitive.Credentials{AccessKey: "itReader01", SecretKey: "itReaderSecret"}, true},
		{"admin key", primitive.Credentials{AccessKey: "itAdmin01", SecretKey: "itAdminSecret"}, true},
		{"wrong secret", primitive.Credentials{AccessKey: "itReader01", SecretKey: "notTheSecret"}, false},
		{"unknown key", primitive.Credentials{AccessKey: "itNobody01", SecretKey: "itReaderSecret"}, false},
		{"no credentials", primitive.Credentials{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{addr})),
				admin.WithCredentials(tc.cred))
			require.NoError(t, err)
			t.Cleanup(func() { _ = adm.Close() })
			mqs, err := adm.FetchPublishMessageQueues(ctxT(t), "AclTopic")
			if tc.ok {
				require.NoError(t, err)
				require.Len(t, mqs, 4)
				return
			}
			require.ErrorContains(t, err, "CODE: 16")
			require.ErrorContains(t, err, "read permission")
			if tc.cred.SecretKey != "" {
				require.NotContains(t, err.Error(), tc.cred.SecretKey)
			}
		})
	}
}

// TestACLProducerSend: a producer's route lookup is signed with
// WithCredentials; with a wrong secret the send fails on the route.
func TestACLProducerSend(t *testing.T) {
	addr, _ := startACLServer(t, aclAccounts, false)
	b := newBroker(t, fakebroker.Config{NameServers: []string{addr},
		Topics: []fakebroker.TopicConfig{fakebroker.Topic("AclSendTopic", 2)},
		Sign:   signer("itBroker01", "itBrokerSecret")})
	require.NoError(t, b.RegisterAll(ctxT(t)))

	send := func(t *testing.T, cred primitive.Credentials) (*primitive.SendResult, error) {
		p, err := producer.NewDefaultProducer(producer.WithNameServer([]string{addr}), producer.WithRetry(0),
			producer.WithGroupName("acl_producer"), producer.WithInstanceName(instanceName(t)),
			producer.WithCredentials(cred), producer.WithSendMsgTimeout(5*time.Second))
		require.NoError(t, err)
		require.NoError(t, p.Start())
		t.Cleanup(func() { _ = p.Shutdown() })
		return p.SendSync(ctxT(t), primitive.NewMessage("AclSendTopic", []byte("signed")))
	}
	t.Run("right key", func(t *testing.T) {
		res, err := send(t, primitive.Credentials{AccessKey: "itReader01", SecretKey: "itReaderSecret"})
		require.NoError(t, err)
		require.Equal(t, primitive.SendOK, res.Status)
	})
	t.Run("wrong secret", func(t *testing.T) {
		_, err := send(t, primitive.Credentials{AccessKey: "itReader01", SecretKey: "notTheSecret"})
		require.Error(t, err)
	})
}

// TestACLAllowListAndRevoke: a global allow-list that leaves out the
// loopback client refuses even a signed admin; a key removed from the file
// stops working within a second.
func TestACLAllowListAndRevoke(t *testing.T) {
	addr, path := startACLServer(t, aclAccounts, true)
	c := dialNS(t, addr)
	kvReq := func(ak, sk string) *remoting.Command {
		req := remoting.NewRequest(remoting.PutKVConfig, map[string]string{"namespace": "ns", "key": "k", "value": "v"}, nil)
		acl.Sign(req, ak, sk, "")
		return req
	}
	resp, err := c.Invoke(ctxT(t), kvReq("itAdmin01", "itAdminSecret"))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)

	write := func(text string) {
		require.NoError(t, os.WriteFile(path+".tmp", []byte(text), 0o600))
		require.NoError(t, os.Rename(path+".tmp", path))
	}
	write("globalWhiteRemoteAddresses: [10.0.0.*]\n" + aclAccounts)
	denied := func(req *remoting.Command, want string) func() error {
		return func() error {
			resp, err := c.Invoke(ctxT(t), req)
			if err != nil {
				return err
			}
			if resp.Code != remoting.NoPermission || !strings.Contains(resp.Remark, want) {
				return fmt.Errorf("code %d %q, want 16 naming %q", resp.Code, resp.Remark, want)
			}
			return nil
		}
	}
	poll.Until(t, "the allow-list", waitTimeout, 10*time.Millisecond, denied(kvReq("itAdmin01", "itAdminSecret"), "globalWhiteRemoteAddresses"))

	write("globalWhiteRemoteAddresses: [127.0.0.1]\naccounts: [{accessKey: itOther01, secretKey: itOtherSecret, admin: true}]\n")
	start := time.Now()
	poll.Until(t, "the revocation", waitTimeout, 10*time.Millisecond, denied(kvReq("itAdmin01", "itAdminSecret"), "unknown access key"))
	t.Logf("revoked after %v", time.Since(start))
	resp, err = c.Invoke(ctxT(t), kvReq("itOther01", "itOtherSecret"))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
}

// TestACLBinary: the cmd/namesrv binary reads the ACL keys from its -c
// file; a signed broker registers and rocketmq-client-go reads with the
// right credentials only.
func TestACLBinary(t *testing.T) {
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(yml, []byte(aclAccounts), 0o600))
	p := startBinary(t, map[string]string{"aclEnable": "true", "aclConfigPath": yml, "aclAnonymousRead": "false"})
	b := newBroker(t, fakebroker.Config{NameServers: []string{p.addr},
		Topics: []fakebroker.TopicConfig{fakebroker.Topic("AclBinTopic", 2)},
		Sign:   signer("itBroker01", "itBrokerSecret")})
	require.NoError(t, b.RegisterAll(ctxT(t)))
	fetch := func(cred primitive.Credentials) error {
		adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{p.addr})),
			admin.WithCredentials(cred))
		require.NoError(t, err)
		defer adm.Close()
		_, err = adm.FetchPublishMessageQueues(ctxT(t), "AclBinTopic")
		return err
	}
	require.NoError(t, fetch(primitive.Credentials{AccessKey: "itReader01", SecretKey: "itReaderSecret"}))
	require.ErrorContains(t, fetch(primitive.Credentials{}), "CODE: 16")
}

// TestACLBinaryRefusesMissingFile: aclEnable without its file stops the
// binary before it listens, naming the key and the file.
func TestACLBinaryRefusesMissingFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "namesrv.properties")
	writeProps(t, cfg, map[string]string{"aclEnable": "true", "listenPort": "0",
		"kvConfigPath": filepath.Join(dir, "kvConfig.json")})
	code, _, stderr := runBinary(t, "-c", cfg)
	require.NotZero(t, code)
	require.Contains(t, stderr, "aclConfigPath")
	require.Contains(t, stderr, filepath.Join(dir, "plain_acl.yml"))
}

// TestACLFileRewrittenInPlace: an operator rewrites plain_acl.yml in
// place (as `cat > file` or an editor does): the file is empty until the
// writer is done. rocketmq-client-go, signed with a reader's key, must
// keep reading routes through it: the empty file was served as "no
// accounts" and every signed client and broker was answered 16 until the
// file was written.
func TestACLFileRewrittenInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(aclAccounts), 0o600))
	logger, logs := testlog.Capture(t, "namesrv", hclog.Info)
	srv := namesrvtest.Start(t, namesrvtest.WithLogger(logger), namesrvtest.WithConfig(func(c *config.NamesrvConfig) { c.AclEnable, c.AclConfigPath, c.AclAnonymousRead = true, path, false }))
	addr := srv.Addr().String()
	b := newBroker(t, fakebroker.Config{NameServers: []string{addr},
		Topics: []fakebroker.TopicConfig{fakebroker.Topic("AclRewriteTopic", 2)},
		Sign:   signer("itBroker01", "itBrokerSecret")})
	require.NoError(t, b.RegisterAll(ctxT(t)))
	fetch := func() error { // a new admin each time: client-go caches routes
		adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{addr})),
			admin.WithCredentials(primitive.Credentials{AccessKey: "itReader01", SecretKey: "itReaderSecret"}))
		require.NoError(t, err)
		defer adm.Close()
		_, err = adm.FetchPublishMessageQueues(ctxT(t), "AclRewriteTopic")
		return err
	}
	require.NoError(t, fetch())

	require.NoError(t, os.Truncate(path, 0)) // the writer opened it with O_TRUNC
	poll.Until(t, "the reloader to judge the empty file", waitTimeout, 10*time.Millisecond, func() error {
		if logs.Has("no YAML document") || logs.Has("accounts=0") {
			return nil
		}
		return errors.New("not yet")
	})
	require.NoError(t, fetch(), "a file being written must not lock clients out")
	require.NoError(t, b.RegisterAll(ctxT(t)), "nor brokers")

	require.NoError(t, os.WriteFile(path, []byte(aclAccounts+"  - {accessKey: itLate001, secretKey: itLateSecret}\n"), 0o600))
	poll.Until(t, "the rewritten file", waitTimeout, 10*time.Millisecond, func() error {
		if logs.Has("accounts=4") {
			return nil
		}
		return errors.New("not reloaded yet")
	})
	require.NoError(t, fetch())
}
