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

func makeImage(t *testing.T, docker string, vars ...string) (string, error) {
	make, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make not installed")
	}
	args := append([]string{"-s", "-C", root, "image", "DOCKER=" + docker, "VERSION=9.9.9", "REVISION=abc123",
		"CREATED=2026-01-02T03:04:05Z"}, vars...)
	out, err := exec.Command(make, args...).CombinedOutput()
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
// passing the Makefile's VERSION and REVISION (what -version prints) and
// the commit's time (the OCI created label).
func TestMakeImageBuildsBothTargets(t *testing.T) {
	docker, log := fakeDocker(t, "0")
	out, err := makeImage(t, docker)
	require.NoError(t, err, out)
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Equal(t, []string{
		"build --target namesrv " + imageArgs + " -t " + makeImageName(t, "namesrv") + " .",
		"build --target namesrv-controller " + imageArgs + " -t " + makeImageName(t, "namesrv-controller") + " .",
	}, strings.Split(strings.TrimSpace(string(b)), "\n"))
}

const imageArgs = "--build-arg VERSION=9.9.9 --build-arg REVISION=abc123 --build-arg CREATED=2026-01-02T03:04:05Z"

// IMAGE_STRICT=1 (CI) makes a missing engine a failure, not a message.
func TestMakeImageStrictFailsWithoutEngine(t *testing.T) {
	docker, log := fakeDocker(t, "1")
	out, err := makeImage(t, docker, "IMAGE_STRICT=1")
	require.Error(t, err, out)
	require.Contains(t, out, "no container engine answers")
	require.Contains(t, out, "IMAGE_STRICT is set")
	require.NoFileExists(t, log)
}

// With podman the image is built in the docker format, whose config keeps
// the HEALTHCHECK (podman's default OCI format drops it with a warning).
func TestMakeImageDockerFormatWithPodman(t *testing.T) {
	docker, log := fakeDocker(t, "0")
	podman := filepath.Join(filepath.Dir(docker), "podman")
	require.NoError(t, os.Rename(docker, podman))
	out, err := makeImage(t, podman)
	require.NoError(t, err, out)
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		require.Contains(t, line, "--format docker "+imageArgs, line)
	}
}

// fakeGo writes a go stand-in for `go build -o DIR/ ./cmd/...`: like the
// real one it fails when DIR is a file or DIR/<command> a directory, and
// otherwise writes one file per command.
func fakeGo(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "go")
	script := "#!/usr/bin/env bash\n" +
		"while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n" +
		"mkdir -p \"$out\" || exit 1\n" +
		"for c in namesrv controller mqadmin; do\n" +
		"  if [ -d \"$out/$c\" ]; then echo \"build output $out/$c already exists and is a directory\" >&2; exit 1; fi\n" +
		"  : > \"$out/$c\" || exit 1\n" +
		"done\n"
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// `make build` and `make build-controller` work in either order into one
// bin directory: the default binaries in it, the tagged ones in
// bin/embedded/.
func TestMakeBuildBothOrders(t *testing.T) {
	make, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make not installed")
	}
	goCmd := fakeGo(t)
	for _, order := range [][]string{{"build", "build-controller"}, {"build-controller", "build"}} {
		bin := filepath.Join(t.TempDir(), "bin")
		out, err := exec.Command(make, "-s", "-C", root, order[0], order[1], "BIN="+bin, "GO="+goCmd).CombinedOutput()
		require.NoError(t, err, "%v: %s", order, out)
		for _, f := range []string{"namesrv", "controller", "mqadmin", "embedded/namesrv", "embedded/controller"} {
			require.FileExists(t, filepath.Join(bin, f), "%v", order)
		}
	}
}

// Without an engine `make test-image` says it skipped and succeeds (it
// runs no go test), or fails with IMAGE_STRICT=1; with one it runs the
// image test with RMQ_TEST_IMAGE=1 and the engine and runtime it names.
func TestMakeTestImageSkipsOrRuns(t *testing.T) {
	make, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make not installed")
	}
	goCmd := filepath.Join(t.TempDir(), "go")
	goLog := goCmd + ".log"
	require.NoError(t, os.WriteFile(goCmd, []byte("#!/usr/bin/env bash\n"+
		"echo \"$RMQ_TEST_IMAGE $RMQ_PODMAN $RMQ_IMAGE_RUNTIME $*\" >> "+goLog+"\n"), 0o755))
	testImage := func(infoRC string, vars ...string) (string, error) {
		podman, _ := fakeDocker(t, infoRC)
		args := append([]string{"-s", "-C", root, "test-image", "PODMAN=" + podman, "GO=" + goCmd}, vars...)
		out, err := exec.Command(make, args...).CombinedOutput()
		return string(out), err
	}
	out, err := testImage("1")
	require.NoError(t, err, out)
	require.Contains(t, out, "test-image: skipped: no container engine answers")
	out, err = testImage("1", "IMAGE_STRICT=1")
	require.Error(t, err, out)
	require.Contains(t, out, "IMAGE_STRICT is set")
	require.NoFileExists(t, goLog)

	out, err = testImage("0")
	require.NoError(t, err, out)
	b, err := os.ReadFile(goLog)
	require.NoError(t, err)
	require.Regexp(t, `^1 /\S+/docker runc test .*-run \^TestImageFromScratchServes\$ .*\./test/deploy/\n$`, string(b))
}
