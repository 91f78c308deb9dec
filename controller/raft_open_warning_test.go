//go:build embedded_controller

package controller

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestAttackOpenRaftPortWarningAddressForms: the Raft-port warning
// decides on the address forms an operator may write: every address of
// 127.0.0.0/8, an IPv4-mapped loopback and LOCALHOST stay quiet; the
// IPv6 unspecified address and a link-local one with a zone warn (an
// empty host, every interface, is refused by the config check).
func TestAttackOpenRaftPortWarningAddressForms(t *testing.T) {
	aclFile := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(aclFile, []byte("accounts: []\n"), 0o600))
	acl := []string{"aclEnable=true", "aclConfigPath=" + aclFile}
	for _, tc := range []struct {
		raftAddr string
		warns    bool
	}{
		{"127.0.0.2:9880", false},
		{"[::ffff:127.0.0.1]:9880", false},
		{"LOCALHOST:9880", false},
		{"[::]:9880", true},
		{"[fe80::1%eth0]:9880", true},
	} {
		t.Run(tc.raftAddr, func(t *testing.T) {
			logger, lines := testlog.Capture(t, "ctl", hclog.Info)
			newOnInmemRaft(t, logger, "n0-"+tc.raftAddr, acl...)
			want := 0
			if tc.warns {
				want = 1
			}
			require.Equal(t, want, lines.Count(openRaftWarning))
		})
	}
}
