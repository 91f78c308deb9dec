package integration

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

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
