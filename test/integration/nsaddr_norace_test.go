//go:build !race

package integration

import (
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"
)

// TestClientGoFollowsNameServerDomain: after the address service's file
// names another NameServer, a running producer follows it with no change
// on the client (its first re-resolution comes 10 s after start).
//
// Not in -race runs: rocketmq-client-go reads its NameServer list
// (namesrvs.Size) without the lock UpdateNameServerAddress writes it
// under, so a send during the client's update is a data race in the
// client.
func TestClientGoFollowsNameServerDomain(t *testing.T) {
	t.Parallel()
	_, nsB, file, url := domainSetup(t)
	p := domainProducer(t, url)
	res, err := p.SendSync(ctxT(t), primitive.NewMessage("DomainTopicA", []byte("via domain")))
	require.NoError(t, err)
	require.Equal(t, primitive.SendOK, res.Status)

	switchList(t, file, url, nsB.Addr().String())
	start := time.Now()
	deadline := start.Add(domainFollowTimeout)
	for {
		res, err = p.SendSync(ctxT(t), primitive.NewMessage("DomainTopicB", []byte("after the change")))
		if err == nil && res.Status == primitive.SendOK {
			break
		}
		require.True(t, time.Now().Before(deadline), "the producer never followed the list: %v", err)
		time.Sleep(500 * time.Millisecond) // poll interval, not an assertion delay
	}
	t.Logf("the producer followed the new list after %s", time.Since(start).Round(time.Second))
}
