//go:build embedded_controller

package sched

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSchedulerReadWaitsAndHoldsNothingBack: a read of sets waits for
// their live tasks, however many names it has, and no later task waits for
// it; a read of no set waits for nothing.
func TestSchedulerReadWaitsAndHoldsNothingBack(t *testing.T) {
	s, p := newSchedProbe(16)
	defer s.Stop()
	require.NoError(t, p.submit(s, "w1", SetKeys("a")))
	require.Equal(t, "w1", p.next(t))
	many := []string{"a"}
	for i := range 100 {
		many = append(many, "x"+string(rune('a'+i%26)), "b")
	}
	require.NoError(t, p.submit(s, "r", ReadKeys(many)))
	require.NoError(t, p.submit(s, "w2", SetKeys("a")))
	require.NoError(t, p.submit(s, "c", SetKeys("c")))
	require.Equal(t, "c", p.next(t), "a read of 100 names is not global")
	require.NoError(t, p.submit(s, "none", ReadKeys(nil)))
	require.Equal(t, "none", p.next(t))
	p.quiet(t, s)
	p.finish("w1")
	got := []string{p.next(t), p.next(t)}
	require.ElementsMatch(t, []string{"r", "w2"}, got, "the read and the next write of a both follow w1")
	p.finish("w2")
	require.NoError(t, p.submit(s, "w3", SetKeys("a")))
	require.Equal(t, "w3", p.next(t), "nothing waits for the read still running")
	for _, n := range []string{"r", "c", "none", "w3"} {
		p.finish(n)
	}
	require.Eventually(t, func() bool { return s.Pending() == 0 }, 10*time.Second, time.Millisecond)
}

// TestSchedulerReadOfManyNamesFindsItsTails: a read of more names than
// there are live keys looks the tails up in its sorted names; it waits for
// the tasks of the sets it lists and for none other.
func TestSchedulerReadOfManyNamesFindsItsTails(t *testing.T) {
	s, p := newSchedProbe(16)
	defer s.Stop()
	require.NoError(t, p.submit(s, "wa", SetKeys("a")))
	require.NoError(t, p.submit(s, "wz", SetKeys("zz")))
	require.ElementsMatch(t, []string{"wa", "wz"}, []string{p.next(t), p.next(t)})
	names := make([]string, 0, 100_001)
	for i := range 100_000 {
		names = append(names, fmt.Sprintf("n%06d", 99_999-i))
	}
	names = append(names, "a")
	require.NoError(t, p.submit(s, "r", ReadKeys(names)))
	p.quiet(t, s)
	p.finish("wz")
	p.quiet(t, s)
	p.finish("wa")
	require.Equal(t, "r", p.next(t))
	p.finish("r")
	require.Eventually(t, func() bool { return s.Pending() == 0 }, 10*time.Second, time.Millisecond)
}
