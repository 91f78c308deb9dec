package lograte

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// FuzzWrapValues: whatever a value holds and whatever its type, Wrap
// neither panics nor writes a line much longer than the cut, and a value
// within the cut is written exactly as the unwrapped logger writes it
// (an error as its text), in both output formats.
func FuzzWrapValues(f *testing.F) {
	f.Add("b\xff", 0, false)
	f.Add(strings.Repeat("x", 600), 3, true)
	f.Add("%s%d%!", 5, false)
	f.Fuzz(func(t *testing.T, s string, kind int, json bool) {
		values := []any{s, []byte(s), address(s), errors.New(s), stringer{s}, hclog.Fmt("%s", s),
			[]string{s, s}, map[string]string{"k": s}, hclog.Format{s}, len(s)}
		v := values[(kind%len(values)+len(values))%len(values)]
		var got, want buffer
		opts := func(w *buffer) *hclog.LoggerOptions {
			return &hclog.LoggerOptions{Name: "f", Output: w, JSONFormat: json, DisableTime: true}
		}
		Wrap(hclog.New(opts(&got))).Warn("value", "v", v)
		require.Less(t, got.Len(), 16*MaxValue+256)
		if len(s) <= MaxValue/4 { // short whatever the type's rendering adds
			if e, ok := v.(error); ok {
				v = e.Error()
			}
			hclog.New(opts(&want)).Warn("value", "v", v)
			require.Equal(t, want.b.String(), got.b.String())
		}
	})
}
