package route

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// javaOrders is the table of iteration orders java.util.HashMap gave
// after random puts and removes (testdata/HashOrders.java generates it
// with java HashOrders.java).
const javaOrders = "testdata/java_hash_orders.txt"

// javaOrderCase is one line of the table: the operations, then the
// orders Java iterated (the map's, then its copies').
type javaOrderCase struct {
	kind   string
	ops    []string
	orders [][]string
}

func readJavaOrders(t *testing.T) []javaOrderCase {
	f, err := os.Open(javaOrders)
	require.NoError(t, err)
	defer f.Close()
	var out []javaOrderCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		parts := strings.Split(rest, " = ")
		c := javaOrderCase{kind: kind, ops: strings.Fields(parts[0])}
		for _, p := range parts[1:] {
			c.orders = append(c.orders, strings.Fields(p))
		}
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

// TestQueueMapOrderMatchesJava replays each String case on a topic's
// queues (puts and removes of broker names) and compares the queue order
// with Java's HashMap, and the BrokerData order with its HashSet copy.
func TestQueueMapOrderMatchesJava(t *testing.T) {
	n := 0
	for i, c := range readJavaOrders(t) {
		if c.kind != "S" {
			continue
		}
		n++
		h := newHarness(t, false)
		h.mutate(func(tm *mutation) {
			for _, op := range c.ops {
				name := op[1:]
				if op[0] == '+' {
					tm.putQueue("t", wire.QueueData{BrokerName: name, Perm: 6})
				} else if e := tm.entry("t", false); e != nil {
					tm.removeQueue(e, name)
				}
			}
		})
		e := h.row("t")
		if len(c.orders[0]) == 0 {
			require.Nil(t, e, "case %d: emptied topics leave the table", i)
			continue
		}
		require.NotNil(t, e, "case %d", i)
		require.Equal(t, c.orders[0], queueNames(e.queues), "case %d: queue map %v", i, c.ops)
		require.Equal(t, c.orders[1], queueNames(brokerOrder(e.queues, e.queueBuckets())), "case %d: HashSet copy", i)
	}
	require.Greater(t, n, 100)
}

// TestAddrMapOrderMatchesJava replays each Long case on a broker group's
// addresses and compares the order with Java's HashMap, its copy
// (new HashMap<>(m)) and a putAll into an empty HashMap.
func TestAddrMapOrderMatchesJava(t *testing.T) {
	n := 0
	for i, c := range readJavaOrders(t) {
		if c.kind != "L" {
			continue
		}
		n++
		b := &brokerState{addrs: map[int64]string{}}
		for _, op := range c.ops {
			id, err := strconv.ParseInt(op[1:], 10, 64)
			require.NoError(t, err)
			if op[0] == '+' {
				b.putAddr(id, "a")
			} else {
				b.deleteAddr(id)
			}
		}
		order := b.addrOrder()
		require.Equal(t, c.orders[0], idNames(order), "case %d: map %v", i, c.ops)
		require.Equal(t, c.orders[1], idNames(wire.CopyOrder(order)), "case %d: copy", i)
		require.Equal(t, c.orders[2], idNames(wire.CopyOrder(order)), "case %d: putAll", i)
	}
	require.Greater(t, n, 100)
}

func queueNames(qs []wire.QueueData) []string {
	out := []string{}
	for _, q := range qs {
		out = append(out, q.BrokerName)
	}
	return out
}

func idNames(ids []int64) []string {
	out := []string{}
	for _, id := range slices.Clip(ids) {
		out = append(out, strconv.FormatInt(id, 10))
	}
	return out
}
