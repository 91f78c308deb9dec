// Package browsertest loads pages in a real headless browser (Debian's
// chromium) for tests: a screenshot kept as a test artifact and the DOM
// as the browser built it.
//
// The tests using it run under `make test-browser`, which sets
// RMQ_TEST_BROWSER=1 and RMQ_ARTIFACTS=bin/artifacts: a screenshot is kept
// as $RMQ_ARTIFACTS/<test name>/<file> (else in the test's
// t.ArtifactDir()). Without the variable, or without chromium, Require
// skips the test saying which.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Env switches the browser tests on; ArtifactsEnv names the directory
// that keeps their screenshots.
const (
	Env          = "RMQ_TEST_BROWSER"
	ArtifactsEnv = "RMQ_ARTIFACTS"
)

// loadTimeout bounds one chromium run (a cold start takes seconds).
const loadTimeout = 90 * time.Second

// Browser is a chromium binary.
type Browser struct {
	bin string
}

// Require returns the browser, or skips t: without RMQ_TEST_BROWSER=1
// (make test-browser sets it) or without chromium on PATH ($CHROMIUM
// names another binary).
func Require(t *testing.T) Browser {
	t.Helper()
	if os.Getenv(Env) != "1" {
		t.Skip("headless browser test: run by `make test-browser` (" + Env + "=1)")
	}
	name := os.Getenv("CHROMIUM")
	if name == "" {
		name = "chromium"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("headless browser test skipped: %s not found (Debian: apt-get install chromium)", name)
	}
	return Browser{bin: bin}
}

// Screenshot loads url at 1280x1600 and writes a PNG named name into the
// test's artifact directory; it returns the file's path, also logged.
func (b Browser) Screenshot(t *testing.T, url, name string) string {
	t.Helper()
	path := filepath.Join(artifactDir(t), name)
	b.run(t, "--screenshot="+path, "--window-size=1280,1600", url)
	info, err := os.Stat(path)
	require.NoError(t, err, "chromium wrote no screenshot")
	require.Positive(t, info.Size())
	t.Logf("screenshot of %s: %s (%d bytes)", url, path, info.Size())
	return path
}

// artifactDir is $RMQ_ARTIFACTS/<test name>, made afresh, or the test's
// t.ArtifactDir().
func artifactDir(t *testing.T) string {
	t.Helper()
	root := os.Getenv(ArtifactsEnv)
	if root == "" {
		return t.ArtifactDir()
	}
	dir, err := filepath.Abs(filepath.Join(root, filepath.FromSlash(t.Name())))
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// DOM loads url and returns the DOM chromium built from it (--dump-dom).
func (b Browser) DOM(t *testing.T, url string) string {
	t.Helper()
	return string(b.run(t, "--dump-dom", url))
}

// run starts chromium headless with a fresh profile, no network of its
// own (no updates, no sync, no QUIC) and returns its standard output.
func (b Browser) run(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), loadTimeout)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, b.bin, append(base, args...)...)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "chromium %v: %s", args, stderr.String())
	return out
}

// limitedBuffer keeps the first 64 KiB written (chromium's stderr).
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.b = append(l.b, p[:min(len(p), 64<<10-len(l.b))]...)
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }
