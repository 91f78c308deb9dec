//go:build embedded_controller

package liveness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// A broker is alive while one connection's heartbeat is; a close removes
// only that connection's beat, whichever connection beat last.
func TestHeartbeatConnBeatsOutliveForeignClose(t *testing.T) {
	e := newHBEnv(t)
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 1)) // the broker
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 2)) // anyone else
	require.Empty(t, e.m.OnConnClose(2), "a foreign close evicts nothing")
	require.True(t, e.m.IsActive("c", "b", 1))
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 3))
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 1)) // the broker beats last
	require.Empty(t, e.m.OnConnClose(3))
	evs := e.m.OnConnClose(1)
	require.Len(t, evs, 1)
	require.Equal(t, ConnID(1), evs[0].Conn)
	require.False(t, e.m.IsActive("c", "b", 1))
	require.Empty(t, e.m.OnConnClose(1), "closed twice")
}

// Each connection's beat lives by its own timeout: a foreign heartbeat's
// longer timeout does not extend the broker's own beat, and the scan
// drops expired beats one by one.
func TestHeartbeatConnBeatsExpireByTheirOwnTimeout(t *testing.T) {
	e := newHBEnv(t)
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 1)) // 3 s
	long := beat(1, "a", 0, 0)
	long.HeartbeatTimeoutMillis = ptr(int64(3_600_000))
	require.NoError(t, e.m.OnHeartbeat(long, 2)) // capped to 60 s
	require.Equal(t, 2, e.m.ConnCount("c", "b", 1))
	e.clock.Advance(3*time.Second + time.Millisecond)
	require.Empty(t, e.m.Scan())
	require.Equal(t, 1, e.m.ConnCount("c", "b", 1), "the broker's own 3 s beat expired")
	require.Empty(t, e.m.OnConnClose(1), "its beat is already gone")
	e.clock.Advance(60*time.Second - 3001*time.Millisecond)
	require.True(t, e.m.IsActive("c", "b", 1))
	e.clock.Advance(time.Millisecond)
	require.Len(t, e.m.Scan(), 1)
	require.Equal(t, []ConnID{2}, e.closed)
}

// One connection beats for at most MaxHeartbeatEntriesPerConn brokers, the
// table holds at most MaxHeartbeatEntries; the excess is answered 2005 and
// a close frees the connection's share.
func TestHeartbeatTableBounds(t *testing.T) {
	e := newHBEnv(t)
	for id := range int64(MaxEntriesPerConn) {
		require.NoError(t, e.m.OnHeartbeat(beat(id, "a", 0, 0), 1))
	}
	require.ErrorIs(t, e.m.OnHeartbeat(beat(MaxEntriesPerConn, "a", 0, 0), 1), ErrRefused)
	require.NoError(t, e.m.OnHeartbeat(beat(0, "a", 0, 0), 1), "a broker it already beats for")
	require.NoError(t, e.m.OnHeartbeat(beat(MaxEntriesPerConn, "a", 0, 0), 2))
	require.Len(t, e.m.OnConnClose(1), MaxEntriesPerConn)
	require.NoError(t, e.m.OnHeartbeat(beat(0, "a", 0, 0), 1), "freed by the close")

	for id := int64(MaxEntriesPerConn + 1); len(e.m.live) < MaxEntries; id++ {
		require.NoError(t, e.m.OnHeartbeat(beat(id, "a", 0, 0), ConnID(1000+id/MaxEntriesPerConn)))
	}
	require.ErrorIs(t, e.m.OnHeartbeat(beat(-5, "a", 0, 0), 9), ErrRefused, "table full")
	require.NoError(t, e.m.OnHeartbeat(beat(0, "a", 0, 0), 9), "a known broker on a new connection")
}

// TestEntryBeatsInlineAndMore: the inline beat and the map of the others
// stay one beat per connection whichever order connections come and go.
func TestEntryBeatsInlineAndMore(t *testing.T) {
	var e hbEntry
	b := func(ms int64) connBeat { return connBeat{last: monotime.Mono(ms), timeout: time.Second} }
	e.setBeat(1, b(1))
	e.setBeat(2, b(2))
	e.setBeat(3, b(3))
	require.Equal(t, 3, e.beats)
	require.True(t, e.dropBeat(1))
	require.False(t, e.dropBeat(1))
	e.setBeat(2, b(20)) // in more while the inline slot is free: updated, not duplicated
	e.setBeat(4, b(4))  // takes the inline slot
	require.Equal(t, 3, e.beats)
	got, ok := e.beatOf(2)
	require.True(t, ok)
	require.Equal(t, b(20), got)
	for _, c := range []ConnID{2, 3, 4} {
		require.True(t, e.dropBeat(c), "conn %d", c)
	}
	require.Zero(t, e.beats)
	require.Nil(t, e.more)
	require.False(t, e.has)
}
