package namesrv

import (
	"maps"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/remoting"
)

func writeACLFile(t *testing.T, text string) string {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// TestACLDenialsCountedOnewayDropped: a denied request is answered 16 and
// counted; a denied oneway request is dropped (not run) and counted too.
func TestACLDenialsCountedOnewayDropped(t *testing.T) {
	path := writeACLFile(t, "accounts: [{accessKey: nsAdmin01, secretKey: nsAdminSecret, admin: true}]\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := startServer(t, func(c *config.NamesrvConfig) {
		c.MetricsExporterType, c.MetricsPromExporterPort = "PROM", 5557
		c.AclEnable, c.AclConfigPath = true, path
	}, WithMetricsListener(ln))
	c := dial(t, srv)
	kv := map[string]string{"namespace": "NS", "key": "k", "value": "v"}

	resp := invoke(t, c, remoting.NewRequest(remoting.PutKVConfig, kv, nil))
	require.Equal(t, remoting.NoPermission, resp.Code)
	require.Contains(t, resp.Remark, "code 100 needs admin permission")
	signed := remoting.NewRequest(remoting.PutKVConfig, maps.Clone(kv), nil) // Sign adds to the map
	acl.Sign(signed, "nsAdmin01", "nsAdminSecret", "")
	require.Equal(t, remoting.Success, invoke(t, c, signed).Code)

	require.NoError(t, c.InvokeOneway(remoting.NewRequest(remoting.DeleteKVConfig, kv, nil)))
	poll.Until(t, `fs.Sum("rocketmq_namesrv_acl_denied_total", "permission", "admin") == 2`, 10*time.Second, 10*time.Millisecond, poll.True(func() bool {
		fs := metricstest.Scrape(t, srv.MetricsAddr().String())
		return fs.Sum("rocketmq_namesrv_acl_denied_total", "permission", "admin") == 2
	}))
	resp = invoke(t, c, remoting.NewRequest(remoting.GetKVConfig, kv, nil))
	require.Equal(t, remoting.Success, resp.Code, "the denied oneway delete did not run")
}

// TestACLCodeIsNotSigned documents ACL 1.0: the signature covers the
// extFields and the body, not the request code, so a captured signed
// request replays under another code with the same fields (Java's
// AclClientRPCHook and PlainAccessValidator alike); docs/security.md recommends TLS.
func TestACLCodeIsNotSigned(t *testing.T) {
	path := writeACLFile(t, "accounts: [{accessKey: nsAdmin01, secretKey: nsAdminSecret, admin: true}]\n")
	srv := startServer(t, func(c *config.NamesrvConfig) { c.AclEnable, c.AclConfigPath = true, path })
	c := dial(t, srv)
	get := remoting.NewRequest(remoting.GetKVConfig, map[string]string{"namespace": "NS", "key": "k"}, nil)
	acl.Sign(get, "nsAdmin01", "nsAdminSecret", "")
	require.Equal(t, remoting.QueryNotFound, invoke(t, c, get).Code)
	replay := remoting.NewRequest(remoting.DeleteKVConfig, get.ExtFields, nil)
	require.Equal(t, remoting.Success, invoke(t, c, replay).Code)
}

// TestACLBadFileStopsStartup: an accounts file that does not parse fails
// New with aclConfigPath and the file named.
func TestACLBadFileStopsStartup(t *testing.T) {
	path := writeACLFile(t, "accounts: [{accessKey: x}]\n")
	cfg := testConfig(t)
	cfg.AclEnable, cfg.AclConfigPath = true, path
	_, err := New(cfg, testLogger(t))
	require.ErrorIs(t, err, acl.ErrBadFile)
	require.ErrorContains(t, err, "aclConfigPath")
	require.ErrorContains(t, err, path)
}
