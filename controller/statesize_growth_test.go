//go:build embedded_controller

package controller

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// rssBytes returns this process's resident set size once freed memory is
// returned to the system (0 where /proc is absent).
func rssBytes() uint64 {
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// flood pipelines the requests on one connection, 256 at a time (under
// the scheduler's queue, so none is refused as busy), and returns how many
// were answered 0.
func flood(t *testing.T, a *attackConn, reqs []map[string]string) int {
	t.Helper()
	ok := 0
	for len(reqs) > 0 {
		n := min(len(reqs), 256)
		var frames []byte
		for _, ext := range reqs[:n] {
			a.opaque++
			req := remoting.NewRequest(remoting.ControllerApplyBrokerID, ext, nil)
			req.Opaque = a.opaque
			frames = remoting.EncodeFrame(frames, req)
		}
		go func() { _, _ = a.nc.Write(frames) }()
		for range n {
			if readResponse(t, a.nc, a.r).Code == codeSuccess {
				ok++
			}
		}
		reqs = reqs[n:]
	}
	return ok
}

// TestAttackReplicatedStateGrowthBounded: 100
// APPLY_BROKER_ID requests with 1 MiB names grew every node by about
// 256 MB (state, Raft log, snapshots), and nothing bounded the number of
// broker sets or of brokers per set. A flood of the largest requests a
// stranger can send (1 MiB names, then as many maximum-size valid broker
// sets and ids as will be taken) now grows the heap by less than 64 MB; the
// heap here also holds the in-memory Raft log of every entry.
func TestAttackReplicatedStateGrowthBounded(t *testing.T) {
	ic := newCluster(t, 1)
	leader := ic.leader(t)
	a := dialAttack(t, leader.Addr())
	heap0, rss0 := heapInUse(), rssBytes()

	hugeOK := 0
	for i := range 100 { // one at a time: the test holds no more than one 1 MiB name
		name := fmt.Sprintf("%03d%s", i, strings.Repeat("h", 1<<20))
		hugeOK += flood(t, a, []map[string]string{applyIDExt("c", name, "1", "127.0.0.1:10911;1")})
	}
	heap1 := heapInUse()
	t.Logf("100 x 1 MiB brokerName: %d answered 0; heap +%d MiB", hugeOK, (int64(heap1)-int64(heap0))>>20)

	name := strings.Repeat("n", 120)
	addr := strings.Repeat("a", 240) + ":10911"
	var reqs []map[string]string
	for i := range 30_000 { // sets of 64 ids, the largest addresses and check codes
		set := fmt.Sprintf("%07d%s", i/64, name)
		reqs = append(reqs, applyIDExt(set, set, strconv.Itoa(i%64+1), fmt.Sprintf("%s;%d", addr, 1700000000000+i)))
	}
	idsOK := flood(t, a, reqs)
	reqs = reqs[:0]
	for i := range 10_000 { // then as many new sets as will be taken
		set := fmt.Sprintf("s%06d%s", i, name)
		reqs = append(reqs, applyIDExt(set, set, "1", addr+";1700000000000"))
	}
	setsOK := flood(t, a, reqs)
	reqs = nil
	heap2, rss2 := heapInUse(), rssBytes()
	growth := int64(heap2) - int64(heap0)
	t.Logf("then 30,000 ids in sets of 64 with 127-byte names and 246-byte addresses: %d answered 0; "+
		"10,000 more sets: %d answered 0", idsOK, setsOK)
	stats := leader.RaftStats()
	t.Logf("heap growth %.1f MiB (RSS %+.1f MiB), accounted state %s bytes, raft last index %s",
		float64(growth)/(1<<20), (float64(rss2)-float64(rss0))/(1<<20), stats["state_bytes"], stats["last_log_index"])
	t.Logf("a snapshot of that state: %.1f MiB", float64(len(snapshotBytes(t, leader.fsm)))/(1<<20))
	require.Zero(t, hugeOK, "1 MiB names were stored")
	require.Less(t, idsOK+setsOK, 40_000, "no bound was reached")
	require.Less(t, growth, int64(64<<20), "a stranger's writes grew the heap by 64 MB or more")
}
