//go:build embedded_controller

package controllertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// previousRelease is the tag of the release the rolling-upgrade test
// upgrades from (CHANGELOG.md).
const previousRelease = "v1.0.0"

var (
	oldBuildOnce sync.Once
	oldBuildDir  string
	oldBuildErr  error
	oldSkip      string
)

// oldBinary builds cmd/namesrv of previousRelease (with the controller
// tag) from the repository's tag into a temporary directory, once per run;
// it skips the test when the tag (or git) is absent, as in a clone without
// tags.
func oldBinary(t *testing.T) string {
	t.Helper()
	binary(t, "namesrv") // the new one first: skips in -short, checks go
	oldBuildOnce.Do(buildOld)
	if oldSkip != "" {
		t.Skip(oldSkip)
	}
	require.NoError(t, oldBuildErr)
	return filepath.Join(oldBuildDir, "bin", "namesrv")
}

func buildOld() {
	gitTool, err := exec.LookPath("git")
	if err != nil {
		oldSkip = "git is not on PATH: cannot build " + previousRelease
		return
	}
	if out, err := exec.Command(gitTool, "rev-parse", "-q", "--verify", "refs/tags/"+previousRelease).CombinedOutput(); err != nil {
		oldSkip = fmt.Sprintf("no tag %s in this clone (git fetch --tags): %s", previousRelease, strings.TrimSpace(string(out)))
		return
	}
	if oldBuildDir, oldBuildErr = os.MkdirTemp("", "upgrade-old-"); oldBuildErr != nil {
		return
	}
	src := filepath.Join(oldBuildDir, "src")
	if oldBuildErr = os.MkdirAll(src, 0o750); oldBuildErr != nil {
		return
	}
	top, err := exec.Command(gitTool, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		oldBuildErr = fmt.Errorf("git rev-parse --show-toplevel: %w", err)
		return
	}
	// From the top: in a subdirectory git archive takes only its subtree.
	archive := exec.Command("sh", "-c", `"$1" archive "$2" | tar -x -C "$3"`, "sh", gitTool, previousRelease, src)
	archive.Dir = strings.TrimSpace(string(top))
	if out, err := archive.CombinedOutput(); err != nil {
		oldBuildErr = fmt.Errorf("git archive %s: %w\n%s", previousRelease, err, out)
		return
	}
	build := exec.Command("go", "build", "-tags", "embedded_controller",
		"-ldflags", "-X github.com/rmqgo/nameserver/internal/version.Version=1.0.0",
		"-o", filepath.Join(oldBuildDir, "bin")+"/", "./cmd/namesrv")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		oldBuildErr = fmt.Errorf("go build %s: %w\n%s", previousRelease, err, out)
	}
}
