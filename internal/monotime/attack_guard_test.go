package monotime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// wallBypasses are ways to drop Go's monotonic reading, or to take a
// decision on wall numbers, that TestNoWallClockDecisions must see (the
// line of each is marked // want).
const wallBypasses = `package p

import "time"

func f(now time.Time, d time.Duration) {
	_ = now.Truncate(time.Minute) // want
	_ = now.Round(0) // want
	_ = now.UTC() // want
	_ = now.Local() // want
	_ = now.In(time.UTC) // want
	_ = now. // want
		UnixMilli()
	_ = time.Time.UnixMilli // want
	_ = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // want
	_, _ = time.Parse(time.RFC3339, "x") // want
	_ = time.UnixMilli(1) // want
	_ = now.Unix() // want
	_, _ = now.MarshalJSON() // want
	_ = now.UnmarshalText(nil) // want
	_, _ = now.GobEncode() // want
	_ = now.Add(d).Before(now) // fine: monotonic
	_ = time.Since(now) // fine
}
`

// TestGuardSeesEveryWallConversion: the guard matched Unix,
// UnixMilli, UnixNano and time.Unix written on one line only, so
// Truncate, Round(0), UTC, Local and In (each drops the monotonic
// reading: the ACL denial log's minute passed it), time.Date, time.Parse,
// a method value and a call split over two lines went unseen; so did a
// time written out and read back (MarshalJSON, UnmarshalText, GobEncode:
// no monotonic reading survives).
func TestGuardSeesEveryWallConversion(t *testing.T) {
	var want []int
	for i, line := range splitLines(wallBypasses) {
		if len(line) > 7 && line[len(line)-7:] == "// want" {
			want = append(want, i+1)
		}
	}
	require.Equal(t, want, wallLines(wallBypasses))
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
