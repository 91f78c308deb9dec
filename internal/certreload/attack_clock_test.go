package certreload

import (
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestNotYetValidRotationLoadsOnceValid: a rotated certificate that
// is not valid yet by this host's wall clock (the clock is behind, or was
// stepped back, when the rotation lands) is refused, rightly; but the
// refusal was remembered by the files' stamps, so once the wall clock
// reached NotBefore the certificate was still never loaded and the old
// one was served until it expired. A refusal that only the wall clock
// decided is tried again at each check (and logged once).
func TestNotYetValidRotationLoadsOnceValid(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	dir := t.TempDir()
	first := ca.Issue(t, testcerts.LeafOptions{})
	f := first.WriteFiles(t, dir, "n0", ca)
	log, lines := testlog.Capture(t, "certreload", hclog.Info)
	r, err := New(f.Cert, f.Key, f.CA, log)
	require.NoError(t, err)
	r.SetCheckInterval(0)

	notBefore := time.Now().Add(2 * time.Second) // x509 keeps whole seconds: 1 to 2 s ahead
	second := ca.Issue(t, testcerts.LeafOptions{NotBefore: notBefore})
	second.WriteFiles(t, dir, "n0", ca)
	r.MaybeReload()
	require.Zero(t, r.Reloads(), "not valid yet: refused")
	require.Equal(t, first.Cert.SerialNumber, r.Certificate().Leaf.SerialNumber)

	require.Eventually(t, func() bool { r.MaybeReload(); return r.Reloads() == 1 }, waitLimit, 20*time.Millisecond,
		"the rotated certificate is loaded once the wall clock reaches its NotBefore")
	require.Equal(t, second.Cert.SerialNumber, r.Certificate().Leaf.SerialNumber)
	require.Equal(t, 1, lines.Count("cannot be loaded"), "the refusal is logged once, not at every retry")
}
