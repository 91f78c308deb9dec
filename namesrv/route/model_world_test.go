package route

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// modelWorld drives random mutations of every kind over 5 broker groups
// in 2 clusters, with masters that move address, slaves of acting-master
// groups, filter servers, static mappings, sync-member topics, topics on
// up to 5 groups, deletions, perm changes, batch unregistrations,
// expiries and channel closes.
type modelWorld struct {
	t     *testing.T
	h     *harness
	rng   *rand.Rand
	chans map[string]*fakeChan
	ops   []string
	nulls bool // draw bodies without timestamp or with nulls (changes the random stream)
	dups  bool // draw bodies with two keys naming one topic (changes the random stream)
}

const modelBrokers = 5

func (w *modelWorld) cluster(b int) string { return "c" + strconv.Itoa(1+b/3) }

func (w *modelWorld) topic() string {
	switch n := w.rng.IntN(20); {
	case n == 0:
		return syncBrokerMemberPrefix + "b" + strconv.Itoa(w.rng.IntN(modelBrokers))
	case n <= 3:
		return syncBrokerMemberPrefix + "x" // shares queue data with plain topics
	default:
		return "t" + strconv.Itoa(n%14)
	}
}

func (w *modelWorld) ch(addr string) *fakeChan {
	if w.chans[addr] == nil {
		w.chans[addr] = newChan(addr)
	}
	return w.chans[addr]
}

// addr is a group's address for id: masters sometimes move.
func (w *modelWorld) addr(b int, id int64) string {
	a := "a" + strconv.Itoa(b)
	if id > 0 {
		return a + "-s" + strconv.FormatInt(id, 10)
	}
	if w.rng.IntN(4) == 0 {
		return a + "-moved"
	}
	return a
}

func (w *modelWorld) registerBody() *wire.RegisterBody {
	var ts []string
	for range 1 + w.rng.IntN(8) {
		ts = append(ts, w.topic())
	}
	bd := body(w.rng.Int64N(3), ts...)
	wq := int32(1 + w.rng.IntN(2))
	for _, k := range bd.Keys {
		tc := bd.TopicConfigs[k]
		tc.WriteQueueNums = wq
		if w.rng.IntN(6) == 0 {
			tc.Perm = wire.PermRead
		}
		bd.TopicConfigs[k] = tc
	}
	if w.rng.IntN(4) == 0 { // keys != TopicName: step 10b deletes by key, 10c puts by name
		for i, k := range bd.Keys {
			tc := bd.TopicConfigs[k]
			delete(bd.TopicConfigs, k)
			bd.Keys[i] = "alias-" + k
			bd.TopicConfigs[bd.Keys[i]] = tc
		}
	}
	switch w.rng.IntN(5) {
	case 0:
		bd.FilterServerList = []string{}
	case 1:
		bd.FilterServerList = []string{"f" + strconv.Itoa(w.rng.IntN(2))}
	}
	if tp := "t13"; w.rng.IntN(4) == 0 && slices.Contains(ts, tp) { // one topic: mappings are never removed
		bd.MappingInfos = map[string]*wire.TopicQueueMappingInfo{tp: {Topic: tp, Bname: "x", TotalQueues: 8, Epoch: w.rng.Int64N(3)}}
	}
	if w.dups && w.rng.IntN(3) == 0 { // a second key naming the first key's topic, with other queues
		tc := bd.TopicConfigs[bd.Keys[0]]
		tc.WriteQueueNums, tc.Perm, tc.Pos = 3, wire.PermRead, int32(len(bd.Keys))
		k := "dup-" + strconv.Itoa(w.rng.IntN(40))
		if _, taken := bd.TopicConfigs[k]; !taken {
			bd.Keys = append(bd.Keys, k)
			bd.TopicConfigs[k] = tc
		}
	}
	if w.nulls {
		nullVariant(bd, w.rng.IntN(12))
	}
	return bd
}

func (w *modelWorld) register(b int, id int64) string {
	bn := "b" + strconv.Itoa(b)
	addr := w.addr(b, id)
	r := reg(w.cluster(b), bn, addr, id, w.registerBody())
	if r.Body.MappingInfos != nil {
		for _, info := range r.Body.MappingInfos {
			info.Bname = bn
		}
	}
	r.EnableActingMaster = boolp(w.rng.IntN(2) == 0)
	if w.rng.IntN(3) == 0 {
		r.ZoneName = "z" + strconv.Itoa(w.rng.IntN(2))
	}
	r.Channel = w.ch(addr)
	_, _ = w.h.RegisterBroker(r)
	return fmt.Sprintf("register %s id %d at %s (%d topics, eam %v, zone %q)", bn, id, addr,
		len(r.Body.TopicConfigs), *r.EnableActingMaster, r.ZoneName)
}

func (w *modelWorld) registerTopic() string {
	tp := w.topic()
	var qs []wire.QueueData
	for b := range modelBrokers {
		if w.rng.IntN(4) != 0 { // all 5 groups (an unshared route) one time in four
			qs = append(qs, wire.QueueData{BrokerName: "b" + strconv.Itoa(b), ReadQueueNums: 8,
				WriteQueueNums: int32(1 + w.rng.IntN(2)), Perm: 6})
		}
	}
	w.h.RegisterTopic(tp, qs)
	return fmt.Sprintf("register topic %s on %d groups", tp, len(qs))
}

func (w *modelWorld) unregister() string {
	n := 1 + w.rng.IntN(3)
	for range n {
		b := w.rng.IntN(modelBrokers)
		id := int64(w.rng.IntN(3))
		w.h.Unregister(wire.UnregisterRequest{ClusterName: w.cluster(b), BrokerAddr: w.addr(b, id),
			BrokerName: "b" + strconv.Itoa(b), BrokerID: id})
	}
	w.h.WaitIdle()
	return fmt.Sprintf("unregister a batch of %d", n)
}

func (w *modelWorld) expire() string {
	w.h.clock.Advance(DefaultBrokerTimeout + time.Second)
	for _, addr := range slices.Sorted(maps.Keys(w.chans)) {
		if w.rng.IntN(2) == 0 {
			b, _ := strconv.Atoi(addr[1:2])
			w.h.Heartbeat(w.cluster(b), addr)
		}
	}
	n := w.h.ScanExpired(w.h.clock.Mono())
	w.h.WaitIdle()
	return fmt.Sprintf("expire %d", n)
}

func (w *modelWorld) step() string {
	b := w.rng.IntN(modelBrokers)
	bn := "b" + strconv.Itoa(b)
	switch w.rng.IntN(12) {
	case 0, 1, 2:
		return w.register(b, 0)
	case 3:
		return w.register(b, int64(1+w.rng.IntN(2)))
	case 4:
		return w.registerTopic()
	case 5:
		cl := []string{"", "c1", "c2", "nope"}[w.rng.IntN(4)]
		tp := w.topic()
		w.h.DeleteTopic(tp, cl)
		return fmt.Sprintf("delete topic %s in %q", tp, cl)
	case 6:
		if w.rng.IntN(2) == 0 {
			return fmt.Sprintf("wipe %s: %d", bn, w.h.WipeWritePerm(bn))
		}
		return fmt.Sprintf("add perm %s: %d", bn, w.h.AddWritePerm(bn))
	case 7, 8:
		return w.unregister()
	case 9:
		return w.expire()
	case 10:
		addr := w.addr(b, int64(w.rng.IntN(3)))
		w.h.OnChannelClose(w.ch(addr))
		w.h.WaitIdle()
		return "close channel of " + addr
	default:
		on := w.rng.IntN(2) == 0
		w.h.set(Settings{DeleteTopicWithBrokerRegistration: on})
		return fmt.Sprintf("deleteTopicWithBrokerRegistration %v", on)
	}
}
