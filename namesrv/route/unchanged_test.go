package route

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

var digestA, digestB = wire.BodyDigest{1}, wire.BodyDigest{2}

// withDigest is req carrying the digest d.
func withDigest(req wire.RegisterRequest, d wire.BodyDigest) wire.RegisterRequest {
	req.BodyDigest = d
	return req
}

func TestRegisterUnchangedRefreshesLiveness(t *testing.T) {
	h := newHarness(t, false)
	master := withDigest(reg("c1", "b1", "a0", 0, body(1, "t1", "t2")), digestA)
	master.Channel = newChan("m")
	mustRegister(t, h, master)
	slave := withDigest(reg("c1", "b1", "a1", 1, body(1, "t1", "t2")), digestB)
	full := mustRegister(t, h, slave)
	snap, pubs := h.Lookup("t1"), h.Stats().Publications
	gen := h.live.genOf(addrKey{"c1", "a1"})

	h.clock.Advance(time.Minute)
	ch := newChan("new-conn")
	slave.Channel, slave.Body = ch, nil
	res, ok := h.RegisterIfUnchanged(slave)
	require.True(t, ok, "identical body of a slave")
	require.Equal(t, full, res, "the same answer as the full path: master and HA address")
	require.Equal(t, wire.RegisterResult{HAServerAddr: "a0-ha", MasterAddr: "a0"}, res)
	e := h.live.m[addrKey{"c1", "a1"}]
	require.Equal(t, h.clock.Mono(), e.last, "liveness refreshed")
	require.Same(t, wire.Channel(ch), e.ch, "the new connection is bound")
	require.Greater(t, e.gen, gen, "a new generation fences older unregistrations")
	require.Same(t, snap, h.Lookup("t1"))
	require.Equal(t, pubs, h.Stats().Publications)
	require.Equal(t, uint64(1), h.Stats().UnchangedRegistrations)

	master.Body = nil
	_, ok = h.RegisterIfUnchanged(master)
	require.True(t, ok, "identical body of a master")
}

func TestRegisterUnchangedFallsBack(t *testing.T) {
	cases := map[string]func(t *testing.T, h *harness, req *wire.RegisterRequest){
		"other digest": func(_ *testing.T, _ *harness, req *wire.RegisterRequest) { req.BodyDigest = digestB },
		"no digest":    func(_ *testing.T, _ *harness, req *wire.RegisterRequest) { req.BodyDigest = wire.BodyDigest{} },
		"other broker": func(_ *testing.T, _ *harness, req *wire.RegisterRequest) { req.BrokerAddr = "a9" },
		"other id":     func(_ *testing.T, _ *harness, req *wire.RegisterRequest) { req.BrokerID = 2 },
		"other zone":   func(_ *testing.T, _ *harness, req *wire.RegisterRequest) { req.ZoneName = "z" },
		"acting master": func(_ *testing.T, _ *harness, req *wire.RegisterRequest) {
			req.EnableActingMaster = boolp(true)
		},
		"unregistered": func(t *testing.T, h *harness, req *wire.RegisterRequest) {
			require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "a0", BrokerName: "b1"}))
			h.WaitIdle()
		},
		"a queue removed since": func(t *testing.T, h *harness, _ *wire.RegisterRequest) {
			mustRegister(t, h, reg("c1", "b2", "x0", 0, body(1, "t8", "t9")))
			require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "x0", BrokerName: "b2"}))
			h.WaitIdle()
		},
		"body replaced since": func(t *testing.T, h *harness, req *wire.RegisterRequest) {
			mustRegister(t, h, withDigest(reg("c1", "b1", "a0", 0, body(2, "t1")), digestB))
		},
		"deleteTopicWithBrokerRegistration": func(t *testing.T, h *harness, _ *wire.RegisterRequest) {
			h.set(Settings{DeleteTopicWithBrokerRegistration: true})
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			req := withDigest(reg("c1", "b1", "a0", 0, body(1, "t1", "t2")), digestA)
			mustRegister(t, h, req)
			req.Body = nil
			change(t, h, &req)
			regs := h.Stats().Registrations
			_, ok := h.RegisterIfUnchanged(req)
			require.False(t, ok)
			require.Equal(t, regs, h.Stats().Registrations, "nothing counted")
			require.Zero(t, h.Stats().UnchangedRegistrations)
		})
	}
}

// A slave that becomes the prime slave of an acting-master group must
// apply its topics once through the full path.
func TestRegisterUnchangedPrimeSlaveFallsBack(t *testing.T) {
	h := newHarness(t, false)
	m := reg("c1", "b1", "a0", 0, body(1, "t1", "t3"))
	m.EnableActingMaster = boolp(true)
	mustRegister(t, h, m)
	s1 := withDigest(reg("c1", "b1", "a1", 1, body(1, "t1", "t2")), digestA)
	s1.EnableActingMaster = boolp(true)
	s2 := reg("c1", "b1", "a2", 2, body(1, "t1", "t3"))
	s2.EnableActingMaster = boolp(true)
	mustRegister(t, h, s2)
	mustRegister(t, h, s1) // not prime: id 0 is the minimum
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "a0", BrokerName: "b1"}))
	h.WaitIdle()
	s1.Body = nil
	_, ok := h.RegisterIfUnchanged(s1)
	require.False(t, ok, "now the prime slave: its topics were never applied")
}
