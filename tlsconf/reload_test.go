package tlsconf

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/big"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/remoting"
)

// seenSerial returns a client config trusting ca that records the serial
// of each server certificate it is shown.
func seenSerial(ca *testcerts.CA, last *atomic.Pointer[big.Int]) *tls.Config {
	c := trusting(ca)
	c.VerifyConnection = func(cs tls.ConnectionState) error {
		last.Store(cs.PeerCertificates[0].SerialNumber)
		return nil
	}
	return c
}

// TestReloadUnderLoad: while clients open TLS connections and send
// requests without pause, the certificate and key files are replaced
// twice (the pair written one file after the other, as an operator
// would); no request fails, the long-lived connection is not dropped,
// and new connections see the new serial.
func TestReloadUnderLoad(t *testing.T) {
	p := newPKI(t)
	m := newManager(t, p.serverTLS(config.TLSModeEnforcing), WithReloadInterval(20*time.Millisecond))
	addr := startEcho(t, m)
	var last atomic.Pointer[big.Int]
	long, err := remoting.Dial(ctxT(t), addr, remoting.ClientOptions{TLS: trusting(p.ca)})
	require.NoError(t, err)
	defer long.Close()

	ctx, stop := context.WithCancel(context.Background())
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { hammer(ctx, t, addr, seenSerial(p.ca, &last), long, &ok, &failed) })
	}
	poll.Until(t, "ok.Load() >= 100", 30*time.Second, 10*time.Millisecond, poll.True(func() bool { return ok.Load() >= 100 }))
	for range 2 {
		next := p.ca.Issue(t, testcerts.LeafOptions{})
		next.WriteFiles(t, p.dir, "server", p.ca)
		poll.Until(t, "new connections to see the new serial", 10*time.Second, 10*time.Millisecond, func() error {
			if s := last.Load(); s == nil || s.Cmp(next.Cert.SerialNumber) != 0 {
				return fmt.Errorf("new connections see serial %v, not %s", s, next.Cert.SerialNumber)
			}
			return nil
		})
	}
	poll.Until(t, "ok.Load() >= 300", 30*time.Second, 10*time.Millisecond, poll.True(func() bool { return ok.Load() >= 300 }))
	stop()
	wg.Wait()
	t.Logf("requests ok=%d failed=%d reloads=%d failed reloads=%d", ok.Load(), failed.Load(), m.Reloads(), m.ReloadFailures())
	require.Zero(t, failed.Load())
	require.Positive(t, ok.Load())
	require.GreaterOrEqual(t, m.Reloads(), uint64(2))
}

// hammer alternates a request on a fresh TLS connection with one on the
// long-lived connection until ctx ends.
func hammer(ctx context.Context, t *testing.T, addr string, cfg *tls.Config, long *remoting.Client, ok, failed *atomic.Int64) {
	for ctx.Err() == nil {
		for _, err := range []error{echo(t, addr, cfg), invokeOn(t, long)} {
			if err != nil {
				failed.Add(1)
				t.Errorf("request failed during reload: %v", err)
				continue
			}
			ok.Add(1)
		}
	}
}

func invokeOn(t *testing.T, c *remoting.Client) error {
	_, err := c.Invoke(ctxT(t), remoting.NewRequest(echoCode, nil, nil))
	return err
}

// TestReloadFailureKeepsOldCertificate: a broken file is logged and
// counted, the previous certificate is served, and a fixed file is picked
// up.
func TestReloadFailureKeepsOldCertificate(t *testing.T) {
	p := newPKI(t)
	m := newManager(t, p.serverTLS(config.TLSModeEnforcing), WithReloadInterval(20*time.Millisecond))
	addr := startEcho(t, m)
	require.NoError(t, os.WriteFile(p.files.Cert, []byte("broken"), 0o600))
	poll.Until(t, "m.ReloadFailures() == 1", 10*time.Second, 10*time.Millisecond, poll.True(func() bool { return m.ReloadFailures() == 1 }))
	var last atomic.Pointer[big.Int]
	require.NoError(t, echo(t, addr, seenSerial(p.ca, &last)))
	require.Zero(t, last.Load().Cmp(p.leaf.Cert.SerialNumber), "the old certificate is still served")

	next := p.ca.Issue(t, testcerts.LeafOptions{})
	next.WriteFiles(t, p.dir, "server", p.ca)
	poll.Until(t, "echo(t, addr, seenSerial(p.ca, &last)) == nil && last.Load().Cmp(next.Cert.SerialNumber) == 0", 10*time.Second, 10*time.Millisecond, poll.True(func() bool {
		return echo(t, addr, seenSerial(p.ca, &last)) == nil && last.Load().Cmp(next.Cert.SerialNumber) == 0
	}))
}

// TestReloadSeesPermissionFixes: a reload that failed because the
// new key was unreadable by the server's user is tried again when the
// operator fixes the permissions (chmod, chown): those change neither
// the inode, the size nor the modification time, only the mode and the
// change time, so a stamp without them never retried and the new
// certificate was not served until some later edit.
func TestReloadSeesPermissionFixes(t *testing.T) {
	p := newPKI(t)
	c := p.serverTLS(config.TLSModeEnforcing)
	w := newWatcher(c)
	require.False(t, w.changed())
	require.NoError(t, os.Chmod(p.files.Key, 0o000))
	require.True(t, w.changed(), "chmod 000")
	require.NoError(t, os.Chmod(p.files.Key, 0o600))
	require.True(t, w.changed(), "chmod back to 600")
	require.False(t, w.changed())
	if os.Geteuid() == 0 {
		require.NoError(t, os.Chown(p.files.Key, 1, 1))
		require.True(t, w.changed(), "chown (mode unchanged)")
	}
}

// TestReloadSurvivesBadReplacements: the certificate file replaced
// by a directory, deleted, replaced by a FIFO or by a huge file: each
// reload fails (counted), the old certificate keeps being served, the
// watcher is not stuck (a FIFO's open would wait for a writer) and picks
// up the good pair written last.
func TestReloadSurvivesBadReplacements(t *testing.T) {
	p := newPKI(t)
	m := newManager(t, p.serverTLS(config.TLSModeEnforcing), WithReloadInterval(20*time.Millisecond))
	addr := startEcho(t, m)
	bad := []func(path string) error{
		func(path string) error { return os.Mkdir(path, 0o700) },
		func(string) error { return nil }, // deleted
		func(path string) error { return syscall.Mkfifo(path, 0o600) },
		func(path string) error {
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(64 << 20)
		},
	}
	for i, replace := range bad {
		require.NoError(t, os.RemoveAll(p.files.Cert))
		require.NoError(t, replace(p.files.Cert))
		poll.Until(t, fmt.Sprintf("replacement %d's reload failure", i), 10*time.Second, 5*time.Millisecond, func() error {
			if n := m.ReloadFailures(); n != uint64(i+1) {
				return fmt.Errorf("%d reload failures", n)
			}
			return nil
		})
		var last atomic.Pointer[big.Int]
		require.NoError(t, echo(t, addr, seenSerial(p.ca, &last)))
		require.Zero(t, last.Load().Cmp(p.leaf.Cert.SerialNumber), "the old certificate is served")
	}
	require.NoError(t, os.RemoveAll(p.files.Cert))
	next := p.ca.Issue(t, testcerts.LeafOptions{})
	next.WriteFiles(t, p.dir, "server", p.ca)
	poll.Until(t, "echo(t, addr, seenSerial(p.ca, &last)) == nil && last.Load().Cmp(next.Cert.SerialNumber) == 0", 10*time.Second, 10*time.Millisecond, poll.True(func() bool {
		var last atomic.Pointer[big.Int]
		return echo(t, addr, seenSerial(p.ca, &last)) == nil && last.Load().Cmp(next.Cert.SerialNumber) == 0
	}))
}
