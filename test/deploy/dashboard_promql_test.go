package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// With promtool present, every expression of the Grafana dashboard (its
// variables replaced as Grafana does) is valid PromQL: each becomes a
// recording rule that `promtool check rules` parses.
func TestDashboardExpressionsParse(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (apt-get install prometheus)")
	}
	b, err := os.ReadFile(filepath.Join(root, "deploy/grafana/namesrv-dashboard.json"))
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(b, &dash))
	vars := strings.NewReplacer("$instance", ".*", "$__rate_interval", "1m", "$__range", "1h", "$__interval", "15s")
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	n := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			expr, err := json.Marshal(vars.Replace(tg.Expr)) // a JSON string is a YAML string
			require.NoError(t, err)
			fmt.Fprintf(&rules, "      - record: dashboard:panel_%d\n        expr: %s\n", n, expr)
			n++
		}
	}
	require.Positive(t, n)
	path := filepath.Join(t.TempDir(), "dashboard-rules.yml")
	require.NoError(t, os.WriteFile(path, []byte(rules.String()), 0o600))
	out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), fmt.Sprintf("SUCCESS: %d rules found", n))
}

// Every alert a panel's description names is one of the shipped rules.
func TestDashboardNamesShippedAlerts(t *testing.T) {
	dash, err := os.ReadFile(filepath.Join(root, "deploy/grafana/namesrv-dashboard.json"))
	require.NoError(t, err)
	rules, err := os.ReadFile(filepath.Join(root, "deploy/prometheus/rocketmq-alerts.yml"))
	require.NoError(t, err)
	var shipped []string
	for _, m := range regexp.MustCompile(`(?m)^\s*- alert: (\w+)$`).FindAllStringSubmatch(string(rules), -1) {
		shipped = append(shipped, m[1])
	}
	named := regexp.MustCompile(`alert (RocketMQ\w+)`).FindAllStringSubmatch(string(dash), -1)
	require.NotEmpty(t, named)
	for _, m := range named {
		require.Contains(t, shipped, m[1], "the dashboard names alert %s", m[1])
	}
}
