package integration

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/crashtrial"
)

// crashNamespace holds the trials' KV writes.
const crashNamespace = "CRASH_TRIAL"

// TestKVWritesSurviveKill9 kills the namesrv process with SIGKILL at a
// random point while four clients write PUT_KV_CONFIG (100), restarts it
// on the same store and reads every write back with GET_KV_CONFIG (101):
// each acknowledged one must be there with its value. 3 trials, 100 in
// long mode (RMQ_TEST_LONG=1); RMQ_CRASH_SEED replays a run.
func TestKVWritesSurviveKill9(t *testing.T) {
	p := startBinary(t, nil)
	rng := crashtrial.Rand(t)
	var tally crashtrial.Tally
	for trial := range crashtrial.Trials() {
		l := crashtrial.NewLedger()
		tally.Add(l)
		kw := newKVWriters(t, p.addr, 4, trial, l)
		wait := crashtrial.Run(len(kw.conns), kw.put)
		d := crashtrial.KillPoint(t, rng, l, 200*time.Millisecond, waitTimeout)
		p.kill()
		wait()
		p.restart()
		tally.Check(t, fmt.Sprintf("trial %d (kill %v after the first ack)", trial, d), l, kvReader(t, p.addr))
	}
	tally.CheckAll(t, "kv", kvReader(t, p.addr))
}

// kvWriters are the writers of one trial, each on its own connection.
type kvWriters struct {
	conns []*remoting.Client
	l     *crashtrial.Ledger
	trial int
}

func newKVWriters(t *testing.T, addr string, n, trial int, l *crashtrial.Ledger) *kvWriters {
	kw := &kvWriters{l: l, trial: trial}
	for range n {
		kw.conns = append(kw.conns, dialNS(t, addr))
	}
	return kw
}

// put sends writer w's i-th PUT_KV_CONFIG; it returns false once the
// server is gone.
func (kw *kvWriters) put(w, i int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	key := fmt.Sprintf("t%d-w%d-%d", kw.trial, w, i)
	value := key + "=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	kw.l.Sent(key, value)
	resp, err := kw.conns[w].Invoke(ctx, remoting.NewRequest(remoting.PutKVConfig,
		map[string]string{"namespace": crashNamespace, "key": key, "value": value}, nil))
	if err != nil {
		return false
	}
	if resp.Code == remoting.Success {
		kw.l.Acked(key)
	}
	return true
}

// kvReader reads a key back over one connection.
func kvReader(t *testing.T, addr string) func(string) (string, bool, error) {
	c := dialNS(t, addr)
	return func(key string) (string, bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.GetKVConfig,
			map[string]string{"namespace": crashNamespace, "key": key}, nil))
		if err != nil {
			return "", false, err
		}
		v, ok := resp.ExtFields["value"]
		return v, resp.Code == remoting.Success && ok, nil
	}
}
