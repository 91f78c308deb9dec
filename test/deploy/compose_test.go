package deploy

import (
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/rmqgo/nameserver/config"
)

type composeFile struct {
	Name     string
	Services map[string]composeService
	Networks map[string]any
	Volumes  map[string]any
}

type composeService struct {
	Image       string
	Build       *struct{ Context, Target string }
	Hostname    string
	Environment map[string]string
	Ports       []string
	Volumes     []string
	Networks    []string
	Restart     string
}

func readCompose(t *testing.T) composeFile {
	b, err := os.ReadFile(filepath.Join(root, "deploy/compose/docker-compose.yml"))
	require.NoError(t, err)
	var cf composeFile
	require.NoError(t, yaml.Unmarshal(b, &cf))
	return cf
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	require.NoError(t, err, s)
	return n
}

// environ turns a compose environment into os.Environ form.
func environ(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// loadNode loads the image's properties file with a service's variables
// over it, as the container does.
func loadNode(t *testing.T, env map[string]string) *config.NamesrvConfig {
	c, err := config.LoadWithEnv(filepath.Join(root, "deploy/container/namesrv.properties"), environ(env))
	require.NoError(t, err, "every NAMESRV_ variable names a key")
	return c
}

// The three nodes: one image (the namesrv-controller target make image
// tags), the same peer lists naming the services, each its own id, the
// container ports the image exposes and the configuration uses, distinct
// host ports, state on a volume at /data, and an address list naming the
// nodes' remoting ports.
func TestComposeNodesAgree(t *testing.T) {
	cf := readCompose(t)
	require.Equal(t, []string{"n0", "n1", "n2"}, slices.Sorted(maps.Keys(cf.Services)))
	expose := strings.Fields(stageNamed(t, parseDockerfile(t), "namesrv-controller").instr["EXPOSE"][0])
	require.Equal(t, makeImageName(t, "namesrv-controller"), cf.Services["n0"].Image)
	require.Equal(t, "namesrv-controller", cf.Services["n0"].Build.Target)
	hostPorts := map[string]string{}
	var peers, raft string
	for name, svc := range cf.Services {
		require.Equal(t, cf.Services["n0"].Image, svc.Image, name)
		require.Equal(t, name, svc.Hostname)
		c := loadNode(t, svc.Environment)
		require.True(t, c.EnableControllerInNamesrv, name)
		cc := &c.Controller
		require.Equal(t, name, cc.ControllerDLegerSelfId)
		if peers == "" {
			peers, raft = cc.ControllerDLegerPeers, cc.ControllerRaftPeers
		}
		require.Equal(t, peers, cc.ControllerDLegerPeers, name)
		require.Equal(t, raft, cc.ControllerRaftPeers, name)
		require.True(t, strings.HasPrefix(cc.ControllerStorePath, "/data/"), cc.ControllerStorePath)
		require.Equal(t, []string{name + "-data:/data"}, svc.Volumes)
		requireAddrPort(t, cc.SelfRemotingAddr(), name, expose)
		requireAddrPort(t, cc.SelfRaftAddr(), name, expose)
		listen, metrics := strconv.Itoa(c.ListenPort), strconv.Itoa(c.MetricsPromExporterPort)
		require.Subset(t, expose, []string{listen, metrics})
		for _, p := range svc.Ports {
			host, ctr, ok := strings.Cut(p, ":")
			require.True(t, ok, p)
			require.Contains(t, expose, ctr, "%s maps a port the image exposes", name)
			require.Empty(t, hostPorts[host], "host port %s used twice", host)
			hostPorts[host] = name
		}
		addrs, err := config.ParseNsAddrList("nsAddrList", c.NsAddrList)
		require.NoError(t, err)
		for i, a := range addrs {
			require.Equal(t, net.JoinHostPort("n"+strconv.Itoa(i), listen), a)
		}
	}
	require.Len(t, hostPorts, 9)
}

// requireAddrPort checks that addr is host:port with the given host and a
// port the image exposes.
func requireAddrPort(t *testing.T, addr, host string, expose []string) {
	h, p, err := net.SplitHostPort(addr)
	require.NoError(t, err, addr)
	require.Equal(t, host, h)
	require.Contains(t, expose, p)
}

// makeImageName is the tag `make image` gives a target, from the
// Makefile's defaults of IMAGE_REPO and IMAGE_TAG.
func makeImageName(t *testing.T, target string) string {
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	vars := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "?="); ok {
			vars[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	require.NotEmpty(t, vars["IMAGE_REPO"])
	require.NotEmpty(t, vars["IMAGE_TAG"])
	return vars["IMAGE_REPO"] + "/" + target + ":" + vars["IMAGE_TAG"]
}

// A node that exits (a crash, an OOM kill) is started again.
func TestComposeRestartsCrashedNodes(t *testing.T) {
	for name, svc := range readCompose(t).Services {
		require.Equal(t, "unless-stopped", svc.Restart, name)
	}
}
