package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// engine runs podman for the image test: RMQ_PODMAN names the binary
// (default podman) and RMQ_IMAGE_RUNTIME the OCI runtime of the containers
// (podman's default when empty; `make test-image` passes runc, as crun
// fails on kernels whose cgroup mode it does not handle).
type engine struct {
	t       *testing.T
	bin     string
	runtime string
}

// imageEngine is the engine, or skips the test unless RMQ_TEST_IMAGE=1
// (make test-image sets it once it has found the engine).
func imageEngine(t *testing.T) engine {
	if os.Getenv("RMQ_TEST_IMAGE") != "1" {
		t.Skip("the image test runs with RMQ_TEST_IMAGE=1 (make test-image)")
	}
	bin := os.Getenv("RMQ_PODMAN")
	if bin == "" {
		bin = "podman"
	}
	path, err := exec.LookPath(bin)
	require.NoError(t, err, "RMQ_TEST_IMAGE=1 needs a container engine")
	return engine{t: t, bin: path, runtime: os.Getenv("RMQ_IMAGE_RUNTIME")}
}

// run runs the engine with args and returns its standard output, and
// with an error its standard error too.
func (e engine) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}

// must runs the engine and fails the test when it fails.
func (e engine) must(args ...string) string {
	e.t.Helper()
	out, err := e.run(args...)
	require.NoError(e.t, err, "%s %s:\n%s", e.bin, strings.Join(args, " "), out)
	return out
}

// runtimeArgs are the flags every podman run gets: the runtime, and
// explicit limits (podman otherwise asks the runtime to keep the host's,
// which fails where they are above what the container may set).
func (e engine) runtimeArgs() []string {
	args := []string{"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"}
	if e.runtime != "" {
		args = append(args, "--runtime", e.runtime)
	}
	return args
}

// scratchContext builds the runtime stages' inputs on the host with the
// build stage's own script (deploy/container/build.sh) and writes a
// Containerfile that is the shipped Dockerfile with its build stage
// replaced by those files: the runtime stages are the shipped text. It
// returns the context directory.
func scratchContext(t *testing.T) string {
	dir := t.TempDir()
	cmd := exec.Command("sh", "deploy/container/build.sh", filepath.Join(dir, "out"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "VERSION=0.0.0-imagetest", "REVISION=imagetest")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "build.sh:\n%s", out)
	file := withHostBuildStage(t, parseDockerfileText(t))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Containerfile"), []byte(file), 0o600))
	return dir
}

// withHostBuildStage replaces the Dockerfile's build stage (FROM ... AS
// build up to the next FROM) with a scratch stage holding the context's
// out/ at /out, where the build stage leaves it.
func withHostBuildStage(t *testing.T, dockerfile string) string {
	lines := strings.Split(dockerfile, "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		if !strings.HasPrefix(l, "FROM ") {
			continue
		}
		if start >= 0 {
			end = i
			break
		}
		if strings.HasSuffix(l, " AS build") {
			start = i
		}
	}
	require.GreaterOrEqual(t, start, 0, "no build stage")
	stage := []string{"FROM scratch AS build", "COPY out/ /out/", ""}
	return strings.Join(append(append(lines[:start:start], stage...), lines[end:]...), "\n")
}

// build builds target from dir's Containerfile without pulling anything
// (a base that is not empty fails here rather than reaching a registry),
// in the docker format, which keeps the HEALTHCHECK, and without layers
// (which would leave the stages' images behind); it returns the tag.
func (e engine) build(dir, target string) string {
	tag := fmt.Sprintf("localhost/rmqgo-imagetest/%s:%d", target, os.Getpid())
	e.must("build", "--pull=never", "--layers=false", "--format", "docker", "--target", target,
		"--build-arg", "VERSION=0.0.0-imagetest", "--build-arg", "REVISION=imagetest",
		"-t", tag, "-f", filepath.Join(dir, "Containerfile"), dir)
	e.t.Cleanup(func() { _, _ = e.run("rmi", "-f", tag) })
	return tag
}

// imageSettings is what the test reads of an image's config.
type imageSettings struct {
	User        string
	Healthcheck struct{ Test []string }
	Labels      map[string]string
}

func (e engine) inspectImage(tag string) imageSettings {
	var cfg imageSettings
	// podman puts the health check beside the config, docker in it
	format := `{"User":{{json .Config.User}},"Labels":{{json .Labels}},"Healthcheck":{{json .HealthCheck}}}`
	out := e.must("image", "inspect", "--format", format, tag)
	require.NoError(e.t, json.Unmarshal([]byte(out), &cfg), out)
	return cfg
}

// start runs tag detached with the remoting and metrics ports published
// on ephemeral loopback ports of the host, and env as -e; the container is
// removed when the test ends.
func (e engine) start(tag string, env ...string) string {
	args := append([]string{"run", "-d"}, e.runtimeArgs()...)
	args = append(args, "-p", "127.0.0.1::9876", "-p", "127.0.0.1::5557")
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	id := strings.TrimSpace(e.must(append(args, tag)...))
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Logf("container logs:\n%s", e.logs(id))
		}
		_, _ = e.run("rm", "-f", "-t", "0", id)
	})
	return id
}

// hostPort is the host address a container port is published on.
func (e engine) hostPort(id, port string) string {
	out := strings.TrimSpace(e.must("port", id, port+"/tcp"))
	return strings.Fields(out)[0]
}

// inspect formats one field of the container's state.
func (e engine) inspect(id, format string) string {
	return strings.TrimSpace(e.must("inspect", "--format", format, id))
}

// logs is the container's output, stdout and stderr together.
func (e engine) logs(id string) string {
	out, err := exec.Command(e.bin, "logs", id).CombinedOutput()
	require.NoError(e.t, err, "%s logs: %s", e.bin, out)
	return string(out)
}
