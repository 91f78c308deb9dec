//go:build embedded_controller

package controller

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/remoting"
)

// tinyNamesBody is a 1006 body of about size bytes: the held set "ghost"
// and two-letter names, which decode to about four times their bytes.
func tinyNamesBody(size int) []byte {
	const alpha = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b bytes.Buffer
	b.WriteString(`["ghost"`)
	for i := 0; b.Len() < size; i++ {
		b.WriteString(`,"`)
		b.WriteByte(alpha[i%len(alpha)])
		b.WriteByte(alpha[i/len(alpha)%len(alpha)])
		b.WriteByte('"')
	}
	b.WriteByte(']')
	return b.Bytes()
}

// heapAlloc is the live heap after a collection.
func heapAlloc() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestAttackTaskBytesHeldByWaitingReads: a stranger holds a set (here a
// task that does not finish while the test runs) and sends 1006 reads of
// that set with big bodies of tiny names. Each read waits behind the held
// set, its caller times out, and its task keeps the decoded names: the
// scheduler's count bound (1,024 live tasks) let them hold about 1,024 ×
// 4 × the frame size. The live tasks' bytes are held to maxTaskBytes.
func TestAttackTaskBytesHeldByWaitingReads(t *testing.T) {
	ic := newCluster(t, 1)
	ctl := ic.leader(t)
	release := make(chan struct{})
	defer close(release)
	require.NoError(t, ctl.sched.Submit(sched.SetKeys("ghost"), func() { <-release }))
	body := tinyNamesBody(448 << 10) // about 92,000 names: under the ceiling of names
	handler := ctl.leaderHandler(ctl.prepareSyncStateData)
	before := heapAlloc()
	const senders = 64
	codes := make(chan int32, senders)
	for range senders {
		go func() {
			resp, err := handler(nil, remoting.NewRequest(remoting.ControllerGetSyncStateData, nil, body))
			if err != nil || resp == nil {
				codes <- -1
				return
			}
			codes <- resp.Code
		}()
	}
	count := map[int32]int{}
	for range senders {
		count[<-codes]++
	}
	held := heapAlloc() - before
	t.Logf("body %d bytes, %d senders: replies by code %v, live tasks %d, heap held %d MiB",
		len(body), senders, count, ctl.sched.Pending(), held>>20)
	require.Positive(t, count[codeSystemBusy], "the bytes bound answers busy")
	require.Less(t, held, int64(maxTaskBytes+24<<20), "the live tasks' bytes are bounded")
}

// TestAttackRequestsPastTheHardCeilingsAreRefused: a 1001 of more distinct
// ids than any set may hold and a 1006 of more names than sets may exist
// are answered 2005 naming the limit, and queue no task.
func TestAttackRequestsPastTheHardCeilingsAreRefused(t *testing.T) {
	ic := newCluster(t, 1)
	ctl := ic.leader(t)
	var ids bytes.Buffer
	ids.WriteString(`{"syncStateSet":[`)
	for i := range hardLimits.BrokersPerSet + 1 {
		if i > 0 {
			ids.WriteByte(',')
		}
		fmt.Fprintf(&ids, "%d", i+1)
	}
	ids.WriteString(`],"syncStateSetEpoch":1}`)
	ext := map[string]string{"brokerName": "a", "masterBrokerId": "1", "masterEpoch": "1"}
	resp := invoke(t, ctl.Addr(), remoting.ControllerAlterSyncStateSet, ext, ids.Bytes())
	t.Logf("1001 of %d ids: code %d %q", hardLimits.BrokersPerSet+1, resp.Code, resp.Remark)
	require.Equal(t, remoting.ControllerInvalidRequest, resp.Code)
	require.Contains(t, resp.Remark, "controllerMaxBrokersPerSet")

	names := tinyNamesBody(600 << 10) // about 120,000 names
	resp = invoke(t, ctl.Addr(), remoting.ControllerGetSyncStateData, nil, names)
	t.Logf("1006 of %d bytes: code %d %q", len(names), resp.Code, resp.Remark)
	require.Equal(t, remoting.ControllerInvalidRequest, resp.Code)
	require.Contains(t, resp.Remark, "controllerMaxBrokerSets")
	require.Zero(t, ctl.sched.Pending())

	resp = invoke(t, ctl.Addr(), remoting.ControllerGetSyncStateData, nil, []byte(`["a"]`))
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
}
