package route

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// unstamped is body without a DataVersion timestamp, as the decoders
// report one without dataVersion.
func unstamped(b *RegisterBody) *RegisterBody {
	b.DataVersion, b.DataVersionUnstamped = DataVersion{Counter: 3}, true
	return b
}

func TestRegisterUnstampedDataVersionIsAlwaysNew(t *testing.T) {
	h := newHarness(t, false)
	req := withDigest(reg("c1", "b1", "a0", 0, unstamped(body(0, "t1", "t2"))), digestA)
	mustRegister(t, h, req)
	k := addrKey{"c1", "a0"}
	stamp := h.clock.Now().UnixMilli()
	require.Equal(t, DataVersion{Counter: 3, Timestamp: stamp}, h.live.m[k].dv, "stamped with the wall clock")
	require.Equal(t, BodyDigest{}, h.live.m[k].memo.digest, "no digest to answer it unchanged by")

	req.Body = nil
	_, ok := h.RegisterUnchanged(req)
	require.False(t, ok)

	h.clock.Advance(time.Second)
	changed := unstamped(body(0, "t1", "t2"))
	tc := changed.TopicConfigs["t1"]
	tc.Perm, tc.WriteQueueNums = PermRead, 2
	changed.TopicConfigs["t1"] = tc
	req.Body = changed
	mustRegister(t, h, req)
	require.Equal(t, QueueData{BrokerName: "b1", ReadQueueNums: 8, WriteQueueNums: 2, Perm: PermRead},
		queueOf(t, h, "t1", "b1"), "a new version: every topic is put")
	require.Equal(t, stamp+1000, h.live.m[k].dv.Timestamp)

	dv := h.live.m[k].dv
	c, _ := h.QueryDataVersion("c1", "a0", &dv)
	require.False(t, c, "the stamped version itself")
	c, _ = h.QueryDataVersion("c1", "a0", nil)
	require.True(t, c)
}

func TestRegisterStampedAfterUnstampedTakesTheDigest(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, withDigest(reg("c1", "b1", "a0", 0, unstamped(body(0, "t1", "t2"))), digestA))
	req := withDigest(reg("c1", "b1", "a0", 0, body(1, "t1", "t2")), digestA)
	mustRegister(t, h, req)
	req.Body = nil
	_, ok := h.RegisterUnchanged(req)
	require.True(t, ok, "a body with a timestamp is answered from its digest again")
}
