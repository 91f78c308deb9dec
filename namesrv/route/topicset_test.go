package route

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTopicSetMatchesMap adds and removes random rows and compares the set
// with a map after each step, and walks that remove what they visit.
// Replay with RMQ_SEED.
func TestTopicSetMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(attackSeed(t), 11))
	rows := make([]*topicEntry, 3000)
	for i := range rows {
		rows[i] = &topicEntry{name: string(rune('a' + i%26))}
	}
	s, model := newTopicSet(), map[*topicEntry]struct{}{}
	for op := range 40_000 {
		e := rows[rng.IntN(min(len(rows), 16+op/8))]
		_, had := model[e]
		if rng.IntN(3) == 0 {
			require.Equal(t, had, s.remove(e), "op %d remove", op)
			delete(model, e)
		} else {
			require.Equal(t, !had, s.add(e), "op %d add", op)
			model[e] = struct{}{}
		}
		require.Equal(t, len(model), s.len())
		require.LessOrEqual(t, s.used*4, len(s.slots)*3, "load at most 3/4")
	}
	got := map[*topicEntry]int{}
	for e := range s.all() {
		got[e]++
	}
	require.Len(t, got, len(model))
	for e := range model {
		require.Equal(t, 1, got[e])
	}
	t.Logf("%d members in %d slots", s.len(), len(s.slots))

	n := 0
	for e := range s.all() {
		require.True(t, s.remove(e), "a walk may remove what it visits")
		n++
	}
	require.Equal(t, len(model), n)
	require.Zero(t, s.len())
	var none *topicSet
	require.Zero(t, none.len())
	for range none.all() {
		t.Fatal("a nil set has no members")
	}
}
