package deploy

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
)

// root is the repository root, from this package's directory.
const root = "../.."

// stage is one FROM section of the Dockerfile.
type stage struct {
	name, base string
	instr      map[string][]string // instruction -> its arguments, one entry per line
}

// parseDockerfile reads the Dockerfile's stages, joining continued lines
// and dropping comments.
func parseDockerfile(t *testing.T) []stage {
	return parseDockerfileAt(t, filepath.Join(root, "Dockerfile"))
}

func parseDockerfileAt(t *testing.T, path string) []stage {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var stages []stage
	var line string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "#") || text == "" && line == "" {
			continue
		}
		if cont, ok := strings.CutSuffix(text, `\`); ok {
			line += cont + " "
			continue
		}
		line += text
		stages = addInstruction(t, stages, line)
		line = ""
	}
	require.NoError(t, sc.Err())
	return stages
}

func addInstruction(t *testing.T, stages []stage, line string) []stage {
	op, args, _ := strings.Cut(line, " ")
	op, args = strings.ToUpper(op), strings.TrimSpace(args)
	if op == "FROM" {
		f := strings.Fields(args)
		s := stage{base: f[0], instr: map[string][]string{}}
		if len(f) == 3 && strings.EqualFold(f[1], "AS") {
			s.name = f[2]
		}
		return append(stages, s)
	}
	if len(stages) == 0 {
		return stages // ARG before the first FROM
	}
	last := &stages[len(stages)-1]
	last.instr[op] = append(last.instr[op], args)
	return stages
}

func stageNamed(t *testing.T, stages []stage, name string) stage {
	for _, s := range stages {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no stage %s", name)
	return stage{}
}

// execForm parses a JSON exec form (["a","b"]).
func execForm(t *testing.T, s string) []string {
	var out []string
	require.NoError(t, json.Unmarshal([]byte(s), &out), s)
	return out
}

const (
	imageConfig = "/etc/rocketmq/namesrv.properties"
	imageBinary = "/usr/local/bin/namesrv"
	imageUser   = "65532:65532"
)

// Both runtime targets: an empty base (FROM scratch), the numeric nonroot user,
// the binary as entrypoint with the image's -c file, a HEALTHCHECK that
// runs -healthcheck with the same file, HOME on the data volume, and the
// ports the configuration uses.
func TestDockerfileTargets(t *testing.T) {
	stages := parseDockerfile(t)
	require.Equal(t, "namesrv", stages[len(stages)-1].name, "the default build is the default target")
	defaults := config.Default()
	image := imageProperties(t)
	for name, ports := range map[string][]string{
		"namesrv":            {"9876", "5557"},
		"namesrv-controller": {"9876", "9878", "9879", "5557"},
	} {
		s := stageNamed(t, stages, name)
		require.Equal(t, "labelled", s.base, name)
		require.Equal(t, []string{imageUser}, s.instr["USER"], name)
		require.Equal(t, []string{imageBinary}, execForm(t, s.instr["ENTRYPOINT"][0]), name)
		require.Equal(t, []string{"-c", imageConfig}, execForm(t, s.instr["CMD"][0]), name)
		hc := s.instr["HEALTHCHECK"][0]
		_, cmd, ok := strings.Cut(hc, "CMD ")
		require.True(t, ok, hc)
		require.Equal(t, []string{imageBinary, "-c", imageConfig, "-healthcheck"}, execForm(t, cmd), name)
		require.Equal(t, []string{"HOME=/data"}, s.instr["ENV"], name)
		require.Equal(t, []string{strings.Join(ports, " ")}, s.instr["EXPOSE"], name)
		require.Contains(t, ports, image["listenPort"])
		require.Contains(t, ports, image["metricsPromExporterPort"])
		require.Equal(t, defaults.ListenPort, atoi(t, ports[0]))
	}
	require.Equal(t, "${BASE}", stageNamed(t, stages, "labelled").base)
	require.Contains(t, parseDockerfileText(t), "ARG BASE=scratch", "the runtime stages need no registry")
	build := stageNamed(t, stages, "build")
	require.Equal(t, []string{"sh deploy/container/build.sh /out"}, build.instr["RUN"][1:])
	script := buildScript(t)
	require.Contains(t, script, "export CGO_ENABLED=0", "static binaries for a base without libc")
	require.Contains(t, script, "-tags embedded_controller")
}

// buildScript is deploy/container/build.sh, which must parse as POSIX sh.
func buildScript(t *testing.T) string {
	path := filepath.Join(root, "deploy/container/build.sh")
	if sh, err := exec.LookPath("sh"); err == nil {
		out, err := exec.Command(sh, "-n", path).CombinedOutput()
		require.NoError(t, err, "sh -n: %s", out)
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// The image test builds the shipped Dockerfile with only its build stage
// replaced: every other stage is the same, and the rootfs (passwd and
// group with the runtime user, the CA bundle) goes onto the empty base.
func TestImageTestBuildsTheShippedRuntimeStages(t *testing.T) {
	shipped := parseDockerfile(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "Dockerfile")
	require.NoError(t, os.WriteFile(path, []byte(withHostBuildStage(t, parseDockerfileText(t))), 0o600))
	tested := parseDockerfileAt(t, path)
	require.Len(t, tested, len(shipped))
	for i, s := range tested {
		if s.name == "build" {
			require.Equal(t, "scratch", s.base)
			require.Equal(t, map[string][]string{"COPY": {"out/ /out/"}}, s.instr)
			continue
		}
		require.Equal(t, shipped[i], s)
	}
	require.Contains(t, stageNamed(t, shipped, "labelled").instr["COPY"], "--from=build /out/rootfs/ /")
	script := buildScript(t)
	for _, must := range []string{"nonroot:x:65532:65532:", "nonroot:x:65532:", "ca-certificates.crt", "chmod 1777"} {
		require.Contains(t, script, must)
	}
}

func parseDockerfileText(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	require.NoError(t, err)
	return string(b)
}

// imageProperties is the image's -c file, which must load and validate
// as it is (state under /data, metrics on for the HEALTHCHECK).
func imageProperties(t *testing.T) map[string]string {
	path := filepath.Join(root, "deploy/container/namesrv.properties")
	c, err := config.Load(path)
	require.NoError(t, err)
	require.True(t, c.PromMetricsEnabled(), "the HEALTHCHECK needs the metrics listener")
	require.True(t, strings.HasPrefix(c.KVConfigPath, "/data/"), c.KVConfigPath)
	props := map[string]string{}
	for _, line := range strings.Split(string(c.Render()), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			props[k] = v
		}
	}
	return props
}

func TestDockerignoreKeepsSources(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	require.NoError(t, err)
	ignored := string(b)
	for _, must := range []string{".git", "bin"} {
		require.Contains(t, strings.Fields(ignored), must)
	}
	for _, keep := range []string{"deploy", "cmd", "go.mod", "go.sum"} {
		require.NotContains(t, strings.Fields(ignored), keep)
	}
}

// Both targets carry the OCI labels, and the runtime user owns only the
// -c file's directory and the data directory (a COPY --chown of a whole
// tree onto / made /etc the user's, so it could rename /etc/passwd).
func TestDockerfileLabelsAndOwnership(t *testing.T) {
	stages := parseDockerfile(t)
	labels := strings.Join(stageNamed(t, stages, "labelled").instr["LABEL"], " ")
	for _, k := range []string{"version", "revision", "source", "created", "licenses", "title", "description"} {
		require.Contains(t, labels, "org.opencontainers.image."+k+"=", k)
	}
	for _, name := range []string{"namesrv", "namesrv-controller"} {
		for _, c := range stageNamed(t, stages, name).instr["COPY"] {
			if !strings.Contains(c, "--chown") {
				continue
			}
			f := strings.Fields(c)
			dest := f[len(f)-1]
			require.Contains(t, []string{"/etc/rocketmq/", "/data/"}, dest, "%s: %s", name, c)
		}
	}
	build := strings.Join(stageNamed(t, stages, "build").instr["ARG"], " ")
	require.Contains(t, build, "REVISION=unknown")
	require.Contains(t, buildScript(t), "$pkg.revision=$REVISION")
}
