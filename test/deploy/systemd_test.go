package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
)

// unitSettings reads the key=value lines of a systemd unit, a key set
// more than once keeping every value.
func unitSettings(t *testing.T, name string) map[string][]string {
	f, err := os.Open(filepath.Join(root, "deploy/systemd", name))
	require.NoError(t, err)
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[k] = append(out[k], v)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// The units give the graceful stop README recommends for rolling restarts
// (enableShutdownGracefully=true: the GO_AWAY phase plus the drain, plus
// the embedded Controller's 10 s) time before systemd's SIGKILL, allow the
// netlink socket net.InterfaceAddrs needs, point at this project and set
// the hardening that costs nothing.
func TestSystemdUnitsStopInTimeAndHarden(t *testing.T) {
	c := config.Default()
	c.EnableShutdownGracefully = true
	for unit, extra := range map[string]time.Duration{
		"rocketmq-namesrv.service":             0,
		"rocketmq-namesrv-controller@.service": 10 * time.Second,
	} {
		u := unitSettings(t, unit)
		stop, err := time.ParseDuration(u["TimeoutStopSec"][0])
		require.NoError(t, err, unit)
		require.Greater(t, stop, c.ShutdownBudget()+extra, unit)
		require.Contains(t, strings.Fields(u["RestrictAddressFamilies"][0]), "AF_NETLINK", unit)
		require.Contains(t, u["Documentation"], "https://github.com/rmqgo/nameserver#readme", unit)
		for _, k := range []string{"ProtectClock", "ProtectKernelLogs", "ProtectHostname", "RestrictSUIDSGID",
			"RestrictRealtime", "NoNewPrivileges"} {
			require.Equal(t, []string{"yes"}, u[k], "%s %s", unit, k)
		}
		require.Equal(t, []string{""}, u["CapabilityBoundingSet"], unit)
		require.Equal(t, []string{"@system-service"}, u["SystemCallFilter"], unit)
		require.Equal(t, []string{"0027"}, u["UMask"], unit)
	}
}

// With systemd-analyze present, each unit's exposure score stays at 2.0
// or below (it was 5.8 MEDIUM before the hardening).
func TestSystemdUnitsExposure(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	score := regexp.MustCompile(`Overall exposure level for \S+: (\d+\.\d+)`)
	for _, unit := range []string{"rocketmq-namesrv.service", "rocketmq-namesrv-controller@.service"} {
		out, err := exec.Command(sa, "security", "--offline=yes", filepath.Join(root, "deploy/systemd", unit)).CombinedOutput()
		m := score.FindSubmatch(out)
		if err != nil && m == nil {
			t.Skipf("systemd-analyze security --offline=yes not usable here: %v: %s", err, out)
		}
		require.Len(t, m, 2, "%s", out)
		v, err := strconv.ParseFloat(string(m[1]), 64)
		require.NoError(t, err)
		t.Logf("%s: exposure %.1f", unit, v)
		require.LessOrEqual(t, v, 2.0, unit)
	}
}
