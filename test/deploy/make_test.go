package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeDocker writes a docker stand-in that answers `info` with infoRC and
// logs every other command line; it returns its path and the log's.
func fakeDocker(t *testing.T, infoRC string) (string, string) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := "#!/usr/bin/env bash\n" +
		"if [ \"$1\" = info ]; then exit " + infoRC + "; fi\n" +
		"echo \"$*\" >> " + log + "\n"
	path := filepath.Join(dir, "docker")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path, log
}

func makeImage(t *testing.T, docker string) (string, error) {
	make, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make not installed")
	}
	out, err := exec.Command(make, "-s", "-C", root, "image", "DOCKER="+docker, "VERSION=9.9.9").CombinedOutput()
	return string(out), err
}

// Without a container engine `make image` says so and succeeds.
func TestMakeImageWithoutEngine(t *testing.T) {
	docker, log := fakeDocker(t, "1")
	out, err := makeImage(t, docker)
	require.NoError(t, err, out)
	require.Contains(t, out, "no container engine answers")
	require.NoFileExists(t, log)
}

// With one it builds both targets under the names compose and k8s use,
// passing the Makefile's VERSION (what -version prints).
func TestMakeImageBuildsBothTargets(t *testing.T) {
	docker, log := fakeDocker(t, "0")
	out, err := makeImage(t, docker)
	require.NoError(t, err, out)
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Equal(t, []string{
		"build --target namesrv --build-arg VERSION=9.9.9 -t " + makeImageName(t, "namesrv") + " .",
		"build --target namesrv-controller --build-arg VERSION=9.9.9 -t " + makeImageName(t, "namesrv-controller") + " .",
	}, strings.Split(strings.TrimSpace(string(b)), "\n"))
}
