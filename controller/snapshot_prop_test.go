//go:build embedded_controller

package controller

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// chooser is where a request sequence takes its choices from: a seeded
// generator (the property test) or the fuzzer's bytes (the fuzz target).
type chooser interface {
	intn(n int) int // in [0, n)
	int64() int64
}

type rngChooser struct{ rng *rand.Rand }

func (c rngChooser) intn(n int) int { return c.rng.IntN(n) }
func (c rngChooser) int64() int64   { return int64(c.rng.Uint64()) }

// byteChooser reads choices from b; once b is used up every choice is 0.
type byteChooser struct{ b []byte }

func (c *byteChooser) next() byte {
	if len(c.b) == 0 {
		return 0
	}
	v := c.b[0]
	c.b = c.b[1:]
	return v
}

func (c *byteChooser) intn(n int) int { return int(c.next()) % n }

func (c *byteChooser) int64() int64 {
	var buf [8]byte
	for i := range buf {
		buf[i] = c.next()
	}
	return int64(binary.LittleEndian.Uint64(buf[:]))
}

// seqGen drives random requests through the leader-side builders and
// FSM.Apply, with adversarial names and values; some entries are the
// unfenced events an earlier binary wrote, whose names were never checked.
type seqGen struct {
	c     chooser
	f     *testFSM
	names []string
	live  *fakeLive
}

// adversarialNames are the names a stranger can send.
func adversarialNames(long int) []string {
	return []string{"", "b", "b\xff", "b\xfe", "b\uFFFD", "\x00", "a\x00b", "<&>\u2028\"\\", " ",
		strings.Repeat("x", long), "broker-a"}
}

// value is an id, epoch or count: small, boundary or arbitrary.
func (g *seqGen) value() int64 {
	switch g.c.intn(6) {
	case 0:
		return []int64{0, -1, -2, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}[g.c.intn(7)]
	case 1:
		return g.c.int64()
	}
	return int64(1 + g.c.intn(4))
}

func (g *seqGen) name() string { return g.names[g.c.intn(len(g.names))] }

// step builds and applies one request (or one legacy entry).
func (g *seqGen) step() {
	name, cluster := g.name(), g.name()
	id := g.value()
	if g.c.intn(3) == 0 {
		g.live.set(cluster, name, id, int32(g.value()), g.value(), int32(g.value()))
	}
	var events []event
	switch g.c.intn(8) {
	case 0, 1:
		next := g.f.state().GetNextBrokerID(wire.GetNextBrokerIDRequest{ClusterName: cluster, BrokerName: name}).NextBrokerID
		if g.c.intn(4) == 0 {
			next = id
		}
		_, events, _ = g.f.state().ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: cluster, BrokerName: name,
			AppliedBrokerID: next, RegisterCheckCode: g.name() + ";" + strconv.FormatInt(g.value(), 10)})
	case 2:
		_, events, _ = g.f.state().ElectMaster(g.electRequest(cluster, name, id), g.live,
			electOptions{EnableElectUncleanMaster: g.c.intn(2) == 0})
	case 3:
		_, events, _ = g.f.state().AlterSyncStateSet(g.alterRequest(name), g.live)
	case 4:
		ids := []string{strconv.FormatInt(id, 10), strconv.FormatInt(g.value(), 10), "", "x"}[:1+g.c.intn(4)]
		_, events, _ = g.f.state().CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: cluster, BrokerName: name,
			BrokerControllerIDsToClean: strings.Join(ids, ";"), IsCleanLivingBroker: g.c.intn(2) == 0}, g.live)
	case 5:
		_, events, _ = g.f.state().RegisterBroker(wire.RegisterBrokerRequest{ClusterName: cluster, BrokerName: name,
			BrokerID: id, BrokerAddress: g.name()}, g.live)
	default:
		events = []event{g.legacyEvent(cluster, name, id)}
	}
	if len(events) > 0 {
		g.f.apply(events...)
	}
}

func (g *seqGen) electRequest(cluster, name string, id int64) wire.ElectMasterRequest {
	switch g.c.intn(3) {
	case 0:
		return brokerElectRequest(cluster, name, id)
	case 1:
		return adminElectRequest(cluster, name, id)
	}
	return controllerElectRequest(name)
}

// alterRequest names the current master and epochs most of the time.
func (g *seqGen) alterRequest(name string) wire.AlterSyncStateSetRequest {
	ss, _ := g.f.state().SyncState(name)
	set := []int64{ss.MasterBrokerID}
	for range g.c.intn(4) {
		set = append(set, g.value())
	}
	req := wire.AlterSyncStateSetRequest{BrokerName: name, MasterBrokerID: ss.MasterBrokerID, MasterEpoch: ss.MasterEpoch,
		SyncStateSet: wire.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: ss.SyncStateSetEpoch}}
	if g.c.intn(4) == 0 {
		req.MasterEpoch, req.SyncStateSet.SyncStateSetEpoch = int32(g.value()), int32(g.value())
	}
	return req
}

// legacyEvent is an unfenced event as an earlier binary wrote it.
func (g *seqGen) legacyEvent(cluster, name string, id int64) event {
	switch g.c.intn(4) {
	case 0:
		return applyBrokerIDEvent{ClusterName: cluster, BrokerName: name, BrokerAddress: g.name(), NewBrokerID: id,
			RegisterCheckCode: g.name()}
	case 1:
		return electMasterEvent{NewMasterElected: g.c.intn(2) == 0, BrokerName: name, NewMasterBrokerID: id}
	case 2:
		return cleanBrokerDataEvent{BrokerName: name, IDs: []int64{id, g.value()}[:g.c.intn(3)]}
	}
	return updateBrokerAddressEvent{ClusterName: cluster, BrokerName: name, BrokerAddress: g.name(), BrokerID: id}
}

// quietFSM is a testFSM that does not log (its warnings would repeat the
// long names of every rejected entry).
func quietFSM(t testing.TB) *testFSM { return &testFSM{t: t, fsm: NewFSM(nil)} }

// runSnapshotSequence applies steps requests, taking a snapshot round trip
// every few steps and at the end.
func runSnapshotSequence(t testing.TB, c chooser, steps, long int) {
	g := &seqGen{c: c, f: quietFSM(t), names: adversarialNames(long), live: newFakeLive()}
	for i := range steps {
		g.step()
		if i%16 == 15 {
			requireRoundTrip(t, g.f.fsm)
		}
	}
	requireRoundTrip(t, g.f.fsm)
}

// TestSnapshotRoundTripRandomRequests: random request sequences with
// adversarial names and values, through the builders and Apply; every
// state snapshots and restores to itself, byte for byte. RMQ_SEED replays
// a run; RMQ_TEST_LONG=1 runs 3,000 sequences instead of 150, one in ten
// with a 1 MiB name in its pool (4 KiB otherwise).
func TestSnapshotRoundTripRandomRequests(t *testing.T) {
	seed := uint64(rand.Int64())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed=%d (replay: RMQ_SEED=%d)", seed, seed)
	runs, longEvery := 150, 0
	if os.Getenv("RMQ_TEST_LONG") == "1" {
		runs, longEvery = 3000, 10
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	for run := range runs {
		runSeed := rng.Uint64()
		long := 4 << 10
		if longEvery > 0 && run%longEvery == 0 {
			long = 1 << 20
		}
		ok := t.Run(fmt.Sprint(run), func(t *testing.T) {
			runSnapshotSequence(t, rngChooser{rand.New(rand.NewPCG(runSeed, runSeed))}, 80, long)
		})
		if !ok {
			t.Fatalf("sequence %d of seed %d failed", run, seed)
		}
	}
}

// FuzzSnapshotRoundTrip: a request sequence read from the fuzzer's bytes,
// with two names of its choosing in the pool; the state round-trips.
func FuzzSnapshotRoundTrip(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 0, 2, 0, 3, 1, 1, 0, 7, 0, 0}, "", "b\xff")
	f.Add([]byte{0, 9, 9, 0, 0, 0, 0, 3, 4, 1, 2, 2, 7, 5, 1, 6}, "b\xfe", "\x00")
	f.Add([]byte("\x07\x01\x02\x03\x06\x00\x05\x04\x03\x02\x01\x00\xff\xfe"), "c", strings.Repeat("n", 300))
	f.Fuzz(func(t *testing.T, script []byte, a, b string) {
		c := &byteChooser{b: script}
		g := &seqGen{c: c, f: quietFSM(t), names: append(adversarialNames(64), a, b), live: newFakeLive()}
		for len(c.b) > 0 {
			g.step()
		}
		requireRoundTrip(t, g.f.fsm)
	})
}
