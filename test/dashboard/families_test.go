package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/tlsconf"
)

// offPanel are the exported families no panel shows, each with the
// reason. Families of client_golang's Go and process collectors not named
// here are left to generic Go dashboards (offPanelPrefixes).
var offPanel = map[string]string{}

// offPanelPrefixes are families of client_golang's standard collectors:
// the Process row shows the ones an operator of this server reads
// (memory, heap, CPU, goroutines, descriptors, GC); the others have
// generic Go dashboards.
var offPanelPrefixes = []string{"go_", "process_"}

// namesrvFamilies are the families a NameServer serves on /metrics with
// every optional part on (TLS, ACL, warm-up forwarding): those of its
// registry, whether or not they have a series yet.
func namesrvFamilies(t *testing.T) []string {
	dir := t.TempDir()
	cfg := namesrvConfig(t)
	cfg.WarmupForwardPeers, cfg.WarmupForwardSeconds = "127.0.0.1:1", 600
	aclPath := filepath.Join(dir, "plain_acl.yml")
	require.NoError(t, os.WriteFile(aclPath, []byte("accounts: [{accessKey: ak000001, secretKey: sk000001, admin: true}]\n"), 0o600))
	cfg.AclEnable, cfg.AclConfigPath = true, aclPath
	ca := testcerts.NewCA(t, "dashboard-ca")
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, dir, "server", ca)
	tc := config.DefaultTLS()
	tc.ServerMode, tc.ServerCertPath, tc.ServerKeyPath = "permissive", files.Cert, files.Key
	logger := testlog.New(t, "namesrv")
	tlsm, err := tlsconf.New(tc, logger)
	require.NoError(t, err)
	t.Cleanup(tlsm.Close)
	srv, err := namesrv.New(cfg, logger, namesrv.WithTLS(tlsm))
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return srv.MetricsRegistry().FamilyNames()
}

// controllerFamilies are the families a standalone controller serves (its
// registry as cmd/controller builds it); the embedded Controller adds the
// same to the NameServer's.
func controllerFamilies() []string {
	reg := metrics.NewProcessRegistry()
	metrics.NewController(reg)
	return reg.FamilyNames()
}

var familyRef = regexp.MustCompile(`\b(?:rocketmq|go|process)_[a-z0-9_]+`)

// panelsByFamily maps each family a panel expression names (a histogram's
// _bucket, _sum and _count series to its family) to the panels' titles.
func panelsByFamily(t *testing.T, families []string) map[string][]string {
	out := map[string][]string{}
	for _, p := range panelsWhere(t, func(string) bool { return true }) {
		for _, tg := range p.Targets {
			for _, name := range familyRef.FindAllString(tg.Expr, -1) {
				name = familyOf(name, families)
				if !slices.Contains(out[name], p.Title) {
					out[name] = append(out[name], p.Title)
				}
			}
		}
	}
	return out
}

func familyOf(series string, families []string) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(series, suffix); ok && slices.Contains(families, base) {
			return base
		}
	}
	return series
}

// exportedFamilies are the families of every server: a NameServer with
// TLS, ACL and warm-up on, and a Controller.
func exportedFamilies(t *testing.T) []string {
	families := append(namesrvFamilies(t), controllerFamilies()...)
	slices.Sort(families)
	return slices.Compact(families)
}

// Every family a panel queries is one a server exports (a name no server
// has would show "No data" for ever).
func TestDashboardQueriesExportedFamilies(t *testing.T) {
	families := exportedFamilies(t)
	shown := panelsByFamily(t, families)
	require.NotEmpty(t, shown)
	for f, panels := range shown {
		require.Contains(t, families, f, "%v query %s, which no server exports", panels, f)
	}
}

// Every family the servers export is on a dashboard panel or in
// offPanel with its reason; offPanel names only exported families on no
// panel. The test logs the table of families and panels.
func TestEveryExportedFamilyOnAPanel(t *testing.T) {
	families := exportedFamilies(t)
	shown := panelsByFamily(t, families)
	var missing, table []string
	for _, f := range families {
		panels, reason := shown[f], offPanel[f]
		switch {
		case len(panels) > 0:
			require.Empty(t, reason, "%s is on %v and in offPanel", f, panels)
			table = append(table, fmt.Sprintf("| `%s` | %s |", f, strings.Join(panels, "; ")))
		case reason != "":
			table = append(table, fmt.Sprintf("| `%s` | none: %s |", f, reason))
		case hasAnyPrefix(f, offPanelPrefixes):
			table = append(table, fmt.Sprintf("| `%s` | none: a standard Go or process family |", f))
		default:
			missing = append(missing, f)
		}
	}
	for f := range offPanel {
		require.Contains(t, families, f, "offPanel names %s, which no server exports", f)
	}
	t.Logf("%d families, %d on panels:\n%s", len(families), len(shown), strings.Join(table, "\n"))
	require.Empty(t, missing, "exported families on no panel and not in offPanel")
}

func hasAnyPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// The instance selector lists the targets of a family every server
// exports, a standalone controller too.
func TestInstanceSelectorListsEveryServer(t *testing.T) {
	b, err := os.ReadFile("../../deploy/grafana/namesrv-dashboard.json")
	require.NoError(t, err)
	var dash struct {
		Templating struct {
			List []struct{ Name, Definition string }
		}
	}
	require.NoError(t, json.Unmarshal(b, &dash))
	var def string
	for _, v := range dash.Templating.List {
		if v.Name == "instance" {
			def = v.Definition
		}
	}
	family, ok := strings.CutPrefix(def, "label_values(")
	require.True(t, ok, def)
	family, _, _ = strings.Cut(family, ",")
	require.Contains(t, namesrvFamilies(t), family)
	require.Contains(t, controllerFamilies(), family)
}
