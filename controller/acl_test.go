//go:build embedded_controller

package controller

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestNewFailsOnBadACLFileAndReleasesListener: an accounts file that does
// not parse fails New with aclConfigPath named, and the listener handed
// over is closed.
func TestNewFailsOnBadACLFileAndReleasesListener(t *testing.T) {
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(yml, []byte("accounts: [{accessKey: short}]\n"), 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	cfg := testControllerConfig(t, "n0", "n0-"+addr, "n0-127.0.0.1:1", "aclEnable=true", "aclConfigPath="+yml)
	_, err = New(cfg, hclog.NewNullLogger(), WithListener(ln))
	require.ErrorIs(t, err, acl.ErrBadFile)
	require.ErrorContains(t, err, "aclConfigPath")
	again, err := net.Listen("tcp", addr)
	require.NoError(t, err, "the listener was released")
	require.NoError(t, again.Close())
}

// TestNewRefusesUnknownControllerAccessKey: with aclEnable, a
// controllerAccessKey that is not an account of aclConfigPath fails New
// naming the key, and the listener handed over is closed.
func TestNewRefusesUnknownControllerAccessKey(t *testing.T) {
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeAccounts(t, yml, adminAccount)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	cfg := testControllerConfig(t, "n0", "n0-"+addr, "n0-127.0.0.1:1", "aclEnable=true", "aclConfigPath="+yml,
		"controllerAccessKey=ctlPoller")
	_, err = New(cfg, hclog.NewNullLogger(), WithListener(ln))
	require.ErrorIs(t, err, config.ErrInvalid)
	require.ErrorContains(t, err, "controllerAccessKey (ctlPoller) must be an account of aclConfigPath")
	again, err := net.Listen("tcp", addr)
	require.NoError(t, err, "the listener was released")
	require.NoError(t, again.Close())
}

// TestControllerAccessKeyIgnoredWithoutACL: with aclEnable=false the key
// needs no accounts file; New warns that it is ignored.
func TestControllerAccessKeyIgnoredWithoutACL(t *testing.T) {
	logger, lines := testlog.Capture(t, "ctl", hclog.Warn)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cfg := testControllerConfig(t, "n0", "n0-"+ln.Addr().String(), "n0-127.0.0.1:1",
		"aclConfigPath=/nonexistent/plain_acl.yml", "controllerAccessKey=ctlPoller")
	ctl, err := New(cfg, logger, WithListener(ln))
	require.NoError(t, err)
	require.NoError(t, ctl.Shutdown(context.Background()))
	require.Equal(t, 1, lines.Count("controllerAccessKey is ignored: aclEnable is false"))
}
