package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
)

type panel struct {
	Title   string
	Targets []struct {
		Expr  string
		RefID string `json:"refId"`
	} `json:"targets"`
}

// panelsOutside returns the dashboard's panels except those of the row
// titled skip.
func panelsOutside(t *testing.T, skip string) []panel {
	return panelsWhere(t, func(row string) bool { return row != skip })
}

// panelsOf returns the panels of the row titled row.
func panelsOf(t *testing.T, row string) []panel {
	return panelsWhere(t, func(r string) bool { return r == row })
}

func panelsWhere(t *testing.T, keep func(row string) bool) []panel {
	b, err := os.ReadFile("../../deploy/grafana/namesrv-dashboard.json")
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			panel
			Type string
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(b, &dash))
	var out []panel
	row := ""
	for _, p := range dash.Panels {
		switch {
		case p.Type == "row":
			row = p.Title
		case keep(row):
			out = append(out, p.panel)
		}
	}
	return out
}

// namesrvConfig is a NameServer's on loopback ports with its state in a
// temporary directory and metrics on.
func namesrvConfig(t *testing.T) *config.NamesrvConfig {
	cfg := namesrvtest.Config(t)
	cfg.MetricsExporterType, cfg.MetricsPromExporterPort = "PROM", freePort(t)
	return cfg
}

// prometheusBinary is Debian's prometheus, or skips the test without it.
func prometheusBinary(t *testing.T) string {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (apt-get install prometheus)")
	}
	return bin
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startPrometheus runs prometheus scraping targets every second and
// returns its base URL; it is stopped when the test ends.
func startPrometheus(t *testing.T, bin string, targets ...string) string {
	dir := t.TempDir()
	cfg := fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\n"+
		"scrape_configs:\n  - job_name: rocketmq\n    static_configs: [{targets: ['%s']}]\n", strings.Join(targets, "', '"))
	path := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "--config.file="+path, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = testWriter{t}, testWriter{t}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return "http://" + addr
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// promResult is Prometheus' answer to an instant query.
type promResult struct {
	Status, Error string
	Data          struct {
		Result []struct{ Value [2]any }
	}
}

// promQuery runs expr at now; ok is false when Prometheus does not answer.
func promQuery(base, expr string) (r promResult, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/query?query="+url.QueryEscape(expr), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return r, false
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		r.Error = err.Error()
	}
	return r, true
}

// query runs expr at now and returns the number of series and the error
// Prometheus gave; ok is false when it does not answer.
func query(base, expr string) (series int, errMsg string, ok bool) {
	r, ok := promQuery(base, expr)
	return len(r.Data.Result), r.Error, ok
}

// noDataIsTheAnswer are panels where "No data" on a fresh node is right:
// with no request or election there is no latency to show (0 would claim
// one), and with no broker set no master epoch.
var noDataIsTheAnswer = map[string]bool{"Latency p99 by code": true, "Controller latency p99 by code": true,
	"Election p99": true, "Master epoch by broker set": true}

// Every expression of the dashboard outside the Controller row returns
// data from a real Prometheus scraping a fresh NameServer: no panel shows
// "No data" (a counter no event has touched yet must still give a 0).
func TestDashboardPanelsHaveDataOnFreshNode(t *testing.T) {
	bin := prometheusBinary(t)
	srv, err := namesrv.New(namesrvConfig(t), testlog.New(t, "namesrv"))
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	base := startPrometheus(t, bin, srv.MetricsAddr().String())

	// rate() needs two scrapes of the target in the window
	poll.Until(t, "prometheus to scrape the NameServer three times", 60*time.Second, 200*time.Millisecond, poll.True(func() bool {
		n, _, ok := query(base, `count_over_time(up{job="rocketmq"}[10s]) >= 3`)
		return ok && n == 1
	}))
	requirePanelsHaveData(t, base, panelsOutside(t, "Controller"))
}

// varsReplacer replaces Grafana's variables: every instance, windows of
// a few 1 s scrapes.
var varsReplacer = strings.NewReplacer(`$instance`, `.*`, "$__rate_interval", "10s", "$__range", "1m", "$__interval", "1s")

// requirePanelsHaveData queries every expression of panels (Grafana's
// variables replaced) and requires a valid answer with at least one
// series, except for the panels of noDataIsTheAnswer.
func requirePanelsHaveData(t *testing.T, base string, panels []panel) {
	var empty []string
	for _, p := range panels {
		if noDataIsTheAnswer[p.Title] {
			continue
		}
		for _, tg := range p.Targets {
			n, msg, ok := query(base, varsReplacer.Replace(tg.Expr))
			require.True(t, ok)
			require.Empty(t, msg, "%s: %s", p.Title, tg.Expr)
			if n == 0 {
				empty = append(empty, p.Title+": "+tg.Expr)
			}
		}
	}
	require.NotEmpty(t, panels)
	require.Empty(t, empty, "panels without data on a fresh node")
}
