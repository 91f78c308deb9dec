package crashtrial

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLedgerCheckFindsLostAndWrongWrites(t *testing.T) {
	l := NewLedger()
	for _, k := range []string{"a", "b", "c", "d"} {
		l.Sent(k, k+"-v")
	}
	l.Acked("a")
	l.Acked("b")
	<-l.FirstAck()
	store := map[string]string{"a": "a-v", "c": "other", "d": "d-v"} // b lost, c corrupted
	bad, err := l.Check(func(k string) (string, bool, error) { v, ok := store[k]; return v, ok, nil })
	require.NoError(t, err)
	require.Equal(t, []string{"b: acknowledged, missing after restart", `c: holds "other", wrote "c-v"`}, bad)
	sent, acked := l.Counts()
	require.Equal(t, 4, sent)
	require.Equal(t, 2, acked)
}
