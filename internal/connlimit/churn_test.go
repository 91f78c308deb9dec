package connlimit

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// TestAttackChurnReturnsEveryPlace: thousands of connections to two
// listeners sharing a small budget, in random order: some answered
// (proven), some silent, some closed by the client at once or after a
// while, many taken over by newer ones or refused. When all are closed
// the listeners and the budget hold nothing: no path (refusal,
// eviction, close by either side, both) loses or double-counts a place,
// and at no time does either exceed its bound. RMQ_SEED=N replays a seed.
func TestAttackChurnReturnsEveryPlace(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "RMQ_SEED")
	}
	t.Logf("seed %d (RMQ_SEED=%d replays it)", seed, seed)
	b := NewBudget(8)
	ls := []*Listener{serve(t, Config{Max: 5, Budget: b, ProveOnWrite: true}), serve(t, Config{Max: 5, Budget: b})}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	var over atomic.Int64
	for w := range 4 {
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 300 {
				c, err := net.Dial("tcp", ls[rng.IntN(2)].Addr().String())
				if err != nil {
					continue
				}
				switch rng.IntN(4) {
				case 0:
					_ = c.Close()
					continue
				case 1:
					_ = c.SetDeadline(time.Now().Add(time.Second))
					_, _ = c.Write([]byte{1})
					_, _ = io.ReadFull(c, make([]byte, 1))
				}
				mu.Lock()
				open = append(open, c)
				if len(open) > 20 {
					i := rng.IntN(len(open))
					_ = open[i].Close()
					open = append(open[:i], open[i+1:]...)
				}
				mu.Unlock()
				if n := b.InUse(); n > b.Max() {
					over.Store(int64(n))
				}
			}
		}()
	}
	wg.Wait()
	require.Zero(t, over.Load(), "the budget was exceeded")
	t.Logf("refused %d+%d, evicted %d+%d", ls[0].Refused(), ls[1].Refused(), ls[0].Evicted(), ls[1].Evicted())
	for _, c := range open {
		_ = c.Close()
	}
	poll.Until(t, "every place given back", 5*time.Second, 5*time.Millisecond, func() error {
		if open0, open1, inUse := ls[0].Open(), ls[1].Open(), b.InUse(); open0 != 0 || open1 != 0 || inUse != 0 {
			return fmt.Errorf("places left: %d, %d, budget %d", open0, open1, inUse)
		}
		return nil
	})
}
