package connlimit

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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

func TestListenerCapClosesOverflowAndFreesOnClose(t *testing.T) {
	b := NewBudget(100)
	l := serve(t, Config{Max: 2, Budget: b})
	c1, ok := echo(t, l)
	require.True(t, ok)
	_, ok = echo(t, l)
	require.True(t, ok)
	_, ok = echo(t, l)
	require.False(t, ok, "the third connection is closed")
	require.Equal(t, uint64(1), l.Refused())
	require.Equal(t, 2, b.InUse())
	require.NoError(t, c1.Close())
	require.Eventually(t, func() bool { return l.Open() == 1 && b.InUse() == 1 }, 5*time.Second, 5*time.Millisecond)
	_, ok = echo(t, l)
	require.True(t, ok, "a place freed by a close is taken again")
}

func TestListenerBudgetSharedAcrossListeners(t *testing.T) {
	b := NewBudget(1)
	l1 := serve(t, Config{Max: 5, Budget: b})
	l2 := serve(t, Config{Max: 5, Budget: b})
	_, ok := echo(t, l1)
	require.True(t, ok)
	_, ok = echo(t, l2)
	require.False(t, ok, "the budget is spent by the other listener")
	require.Equal(t, uint64(1), l2.Refused())
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
	require.Eventually(t, func() bool { return l.Open() == 1 }, 5*time.Second, 5*time.Millisecond)
}

func TestSideBudgetIsAQuarterOfTheFdLimit(t *testing.T) {
	n, ok := NoFileLimit()
	if !ok {
		t.Skip("no RLIMIT_NOFILE")
	}
	t.Logf("RLIMIT_NOFILE=%d side budget=%d", n, Side().Max())
	require.Equal(t, int(min(n/SideShare, unlimitedSide)), Side().Max())
}
