package dashboard

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv"
)

// panelExpr is the expression of the panel titled title's target refID,
// with Grafana's variables replaced.
func panelExpr(t *testing.T, title, refID string) string {
	for _, p := range panelsWhere(t, func(string) bool { return true }) {
		if p.Title != title {
			continue
		}
		for _, tg := range p.Targets {
			if tg.RefID == refID {
				return varsReplacer.Replace(tg.Expr)
			}
		}
	}
	t.Fatalf("no panel %q with target %s", title, refID)
	return ""
}

// queryMax runs expr at now and returns the largest value of its result
// (ok false without an answer or a series).
func queryMax(base, expr string) (float64, bool) {
	r, ok := promQuery(base, expr)
	best, found := 0.0, false
	for _, s := range r.Data.Result {
		text, _ := s.Value[1].(string)
		if v, err := strconv.ParseFloat(text, 64); err == nil && (!found || v > best) {
			best, found = v, true
		}
	}
	return best, ok && found
}

// requireEventuallyAtLeast polls expr until its largest value is at least want.
func requireEventuallyAtLeast(t *testing.T, base, expr string, want float64) {
	poll.Until(t, fmt.Sprintf("%s to reach %v", expr, want), 60*time.Second, 200*time.Millisecond, func() error {
		if v, ok := queryMax(base, expr); !ok || v < want {
			return fmt.Errorf("largest value %v (answered: %v)", v, ok)
		}
		return nil
	})
}

// A NameServer that stops answering scrapes shows on the availability
// panels: Nodes down counts it (0 while it was up) and Targets up drops
// to 0 for it.
func TestDashboardNodesDownCountsAStoppedNode(t *testing.T) {
	bin := prometheusBinary(t)
	srv, err := namesrv.New(namesrvConfig(t), testlog.New(t, "namesrv"))
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) }) // once: a no-op after the test's
	base := startPrometheus(t, bin, srv.MetricsAddr().String())
	down, up := panelExpr(t, "Nodes down", "A"), panelExpr(t, "Targets up", "A")
	requireEventuallyAtLeast(t, base, up, 1)
	v, ok := queryMax(base, down)
	require.True(t, ok)
	require.Equal(t, 0.0, v, "a node down while every target answers")

	require.NoError(t, srv.Shutdown(context.Background()))
	requireEventuallyAtLeast(t, base, down, 1)
	v, ok = queryMax(base, up)
	require.True(t, ok)
	require.Equal(t, 0.0, v)
}
