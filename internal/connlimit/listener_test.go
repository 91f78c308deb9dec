package connlimit

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// serve accepts on l and echoes every connection until the test ends.
func serve(t *testing.T, cfg Config) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := Wrap(ln, cfg)
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				_, _ = io.Copy(c, c)
				_ = c.Close()
			}()
		}
	}()
	return l
}

// echo dials l, sends a byte and reports whether it came back.
func echo(t *testing.T, l *Listener) (net.Conn, bool) {
	t.Helper()
	c, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte{1}); err != nil {
		return c, false
	}
	_, err = io.ReadFull(c, make([]byte, 1))
	return c, err == nil
}

// closed reports whether the server closed c (within 5 s).
func closed(t *testing.T, c net.Conn) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.Read(make([]byte, 1))
	return err == io.EOF
}

func TestListenerCapEvictsOldestUnproven(t *testing.T) {
	b := NewBudget(100)
	l := serve(t, Config{Max: 2, Budget: b})
	c1, ok := echo(t, l)
	require.True(t, ok)
	c2, ok := echo(t, l)
	require.True(t, ok)
	_, ok = echo(t, l)
	require.True(t, ok, "a new connection over the cap takes the oldest unproven one's place")
	require.True(t, closed(t, c1), "the oldest is closed")
	require.Equal(t, uint64(1), l.Evicted())
	require.Zero(t, l.Refused())
	require.Equal(t, 2, l.Open())
	require.Equal(t, 2, b.InUse())
	require.NoError(t, c2.Close())
	poll.Until(t, "l.Open() == 1 && b.InUse() == 1", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { return l.Open() == 1 && b.InUse() == 1 }))
	_, ok = echo(t, l)
	require.True(t, ok, "a place freed by a close is taken again")
	require.Equal(t, uint64(1), l.Evicted())
}

func TestListenerCapRefusesOverProven(t *testing.T) {
	b := NewBudget(100)
	l := serve(t, Config{Max: 2, Budget: b, ProveOnWrite: true}) // the echo proves
	c1, ok := echo(t, l)
	require.True(t, ok)
	silent, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer silent.Close()
	poll.Until(t, "l.Open() == 2", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { return l.Open() == 2 }))
	_, ok = echo(t, l)
	require.True(t, ok, "the silent connection gives its place")
	t.Logf("evicted=%d refused=%d open=%d", l.Evicted(), l.Refused(), l.Open())
	require.True(t, closed(t, silent))
	_, ok = echo(t, l)
	require.False(t, ok, "both places are proven: the new connection is closed")
	require.Equal(t, uint64(1), l.Refused())
	require.Equal(t, uint64(1), l.Evicted())
	_, err = c1.Write([]byte{3})
	require.NoError(t, err)
	_, err = io.ReadFull(c1, make([]byte, 1))
	require.NoError(t, err, "a proven connection keeps its place")
	require.Equal(t, 2, b.InUse())
}

func TestListenerBudgetSharedAcrossListeners(t *testing.T) {
	b := NewBudget(1)
	proven := serve(t, Config{Max: 5, Budget: b, ProveOnWrite: true})
	plain := serve(t, Config{Max: 5, Budget: b})
	c, ok := echo(t, plain)
	require.True(t, ok)
	_, ok = echo(t, proven)
	require.True(t, ok, "the other listener's unproven connection gives its place")
	require.True(t, closed(t, c))
	_, ok = echo(t, plain)
	require.False(t, ok, "the budget is spent by the other listener's proven connection")
	require.Equal(t, uint64(1), plain.Refused())
	require.Equal(t, uint64(1), proven.Evicted())
	require.Equal(t, 1, b.InUse())
}

func TestListenerFirstReadTimeout(t *testing.T) {
	l := serve(t, Config{Max: 5, Budget: NewBudget(5), FirstReadTimeout: 200 * time.Millisecond})
	silent, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer silent.Close()
	require.NoError(t, silent.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = silent.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "a connection that sends nothing is closed (deadline 10 s)")

	c, ok := echo(t, l)
	require.True(t, ok)
	time.Sleep(400 * time.Millisecond) // longer than the first-read timeout: lifted by the first byte
	_, err = c.Write([]byte{2})
	require.NoError(t, err)
	_, err = io.ReadFull(c, make([]byte, 1))
	require.NoError(t, err, "a connection that spoke keeps no deadline")
	poll.Until(t, "l.Open() == 1", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { return l.Open() == 1 }))
}

func TestSideBudgetIsAQuarterOfTheFdLimit(t *testing.T) {
	n, ok := NoFileLimit()
	if !ok {
		t.Skip("no RLIMIT_NOFILE")
	}
	t.Logf("RLIMIT_NOFILE=%d side budget=%d", n, Side().Max())
	require.Equal(t, int(min(n/SideShare, unlimitedSide)), Side().Max())
}
