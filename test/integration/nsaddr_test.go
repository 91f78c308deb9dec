package integration

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// domainFollowTimeout bounds waiting for rocketmq-client-go to follow a
// list change: its HttpResolver is asked again 10 s after start (then
// every 2 minutes).
const domainFollowTimeout = 40 * time.Second

// startAddrService starts a NameServer whose metrics listener serves the
// list in file, and returns the URL clients configure as their domain.
func startAddrService(t *testing.T, file string) string {
	srv := startInProcess(t, func(c *config.NamesrvConfig) {
		c.MetricsExporterType = "PROM"
		c.MetricsPromExporterHost = "127.0.0.1"
		c.MetricsPromExporterPort = freePort(t)
		c.NsAddrFile = file
	})
	url := "http://" + srv.MetricsAddr().String() + "/rocketmq/nsaddr"
	t.Cleanup(func() { removeClientSnapshot(url) })
	return url
}

// removeClientSnapshot deletes the list rocketmq-client-go saved for url
// (HttpResolver.getSnapshotFilePath).
func removeClientSnapshot(url string) {
	if u, err := user.Current(); err == nil {
		sum := md5.Sum([]byte(url))
		_ = os.Remove(filepath.Join(u.HomeDir, "logs/rocketmq-go/snapshot", "nameserver_addr-"+hex.EncodeToString(sum[:])))
	}
}

func httpBody(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: status %d", url, resp.StatusCode)
	}
	return string(b), err
}

// TestClientGoFollowsNameServerDomain: a producer configured with
// WithNameServerDomain finds its NameServer through the address service,
// and after the list file is changed to another NameServer it follows,
// with no change on the client.
func TestClientGoFollowsNameServerDomain(t *testing.T) {
	t.Parallel()
	nsA, nsB := startInProcess(t, nil), startInProcess(t, nil)
	registered := func(ns *namesrv.Server, topic string) {
		b := newBroker(t, fakebroker.Config{NameServers: []string{ns.Addr().String()},
			Topics: []fakebroker.TopicConfig{fakebroker.Topic(topic, 2)}})
		require.NoError(t, b.RegisterAll(ctxT(t)))
	}
	registered(nsA, "DomainTopicA")
	registered(nsB, "DomainTopicB")
	file := filepath.Join(t.TempDir(), "nsaddr")
	require.NoError(t, os.WriteFile(file, []byte(nsA.Addr().String()+"\n"), 0o644))
	url := startAddrService(t, file)

	p, err := producer.NewDefaultProducer(producer.WithNameServerDomain(url), producer.WithRetry(0),
		producer.WithGroupName("domain_producer"), producer.WithInstanceName(instanceName(t)),
		producer.WithSendMsgTimeout(3*time.Second))
	require.NoError(t, err)
	require.NoError(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })
	res, err := p.SendSync(ctxT(t), primitive.NewMessage("DomainTopicA", []byte("via domain")))
	require.NoError(t, err)
	require.Equal(t, primitive.SendOK, res.Status)

	tmp := file + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte(nsB.Addr().String()), 0o644))
	require.NoError(t, os.Rename(tmp, file))
	waitFor(t, "the new list served", func() error {
		if body, err := httpBody(url); err != nil || body != nsB.Addr().String() {
			return fmt.Errorf("served %q (%v)", body, err)
		}
		return nil
	})
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
