package integration

import (
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// TestClientGoPipelinedLookupsGetTheirOwnRoutes: rocketmq-client-go sends
// route lookups of many different topics at once over its one connection
// to the NameServer (the NameServer recycles each lookup's request and may
// write its answer on the read loop). Every answer must be its own topic's:
// topic i has i%16+1 queues, and unknown topics, interleaved, must fail.
func TestClientGoPipelinedLookupsGetTheirOwnRoutes(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	addr := namesrvtest.Start(t).Addr().String()
	const known = 300
	topics := make([]fakebroker.TopicConfig, known)
	for i := range topics {
		topics[i] = fakebroker.Topic(fmt.Sprintf("Pipe-%03d", i), int32(i%16+1))
	}
	registeredBroker(t, addr, topics...)
	adm := newAdmin(t, addr)
	order := rand.New(rand.NewSource(seed)).Perm(2 * known) // odd: unknown topics
	var wg sync.WaitGroup
	errs := make(chan error, len(order))
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := g; j < len(order); j += 16 {
				errs <- checkLookup(t, adm, order[j])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// checkLookup fetches topic n/2 (known for even n, unknown for odd n) and
// checks the answer is that topic's.
func checkLookup(t *testing.T, adm admin.Admin, n int) error {
	i, isKnown := n/2, n%2 == 0
	topic := fmt.Sprintf("Pipe-%03d", i)
	if !isKnown {
		topic = fmt.Sprintf("Unknown-%03d", i)
	}
	mqs, err := adm.FetchPublishMessageQueues(ctxT(t), topic)
	if !isKnown {
		if err == nil {
			return fmt.Errorf("unknown topic %s answered %d queues", topic, len(mqs))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("topic %s: %w", topic, err)
	}
	if len(mqs) != i%16+1 {
		return fmt.Errorf("topic %s: %d queues, want %d", topic, len(mqs), i%16+1)
	}
	for _, mq := range mqs {
		if mq.Topic != topic {
			return fmt.Errorf("topic %s: answered a queue of %s", topic, mq.Topic)
		}
	}
	return nil
}
