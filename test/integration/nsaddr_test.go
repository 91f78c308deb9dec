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

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// domainFollowTimeout bounds waiting for rocketmq-client-go to follow a
// list change: its HttpResolver is asked again 10 s after start (then
// every 2 minutes).
const domainFollowTimeout = 40 * time.Second

// startAddrService starts a NameServer whose metrics listener serves the
// list in file, and returns the URL clients configure as their domain.
func startAddrService(t *testing.T, file string) string {
	srv := namesrvtest.Start(t, namesrvtest.WithConfig(func(c *config.NamesrvConfig) {
		c.MetricsExporterType = "PROM"
		c.MetricsPromExporterHost = "127.0.0.1"
		c.MetricsPromExporterPort = freePort(t)
		c.NsAddrFile = file
	}))
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

// domainSetup starts NameServers A and B, each with a broker holding its
// own topic (DomainTopicA, DomainTopicB), and an address service whose
// file names A. It returns them, the file and the URL clients use.
func domainSetup(t *testing.T) (nsA, nsB *namesrv.Server, file, url string) {
	nsA, nsB = namesrvtest.Start(t), namesrvtest.Start(t)
	for ns, topic := range map[*namesrv.Server]string{nsA: "DomainTopicA", nsB: "DomainTopicB"} {
		b := newBroker(t, fakebroker.Config{NameServers: []string{ns.Addr().String()},
			Topics: []fakebroker.TopicConfig{fakebroker.Topic(topic, 2)}})
		require.NoError(t, b.RegisterAll(ctxT(t)))
	}
	file = filepath.Join(t.TempDir(), "nsaddr")
	require.NoError(t, os.WriteFile(file, []byte(nsA.Addr().String()+"\n"), 0o644))
	return nsA, nsB, file, startAddrService(t, file)
}

// domainProducer starts a producer that knows only the domain URL.
func domainProducer(t *testing.T, url string) rocketmq.Producer {
	p, err := producer.NewDefaultProducer(producer.WithNameServerDomain(url), producer.WithRetry(0),
		producer.WithGroupName("domain_producer"), producer.WithInstanceName(instanceName(t)),
		producer.WithSendMsgTimeout(3*time.Second))
	require.NoError(t, err)
	require.NoError(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// switchList points the file at addr (replaced by a rename) and waits
// until the address service serves it.
func switchList(t *testing.T, file, url, addr string) {
	tmp := file + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte(addr), 0o644))
	require.NoError(t, os.Rename(tmp, file))
	poll.Until(t, "the new list served", waitTimeout, 10*time.Millisecond, func() error {
		if body, err := httpBody(url); err != nil || body != addr {
			return fmt.Errorf("served %q (%v)", body, err)
		}
		return nil
	})
}

// TestClientGoResolvesNameServerDomain: a producer configured only with
// WithNameServerDomain sends through the NameServer the address service
// names, and rocketmq-client-go's HttpResolver (what the client asks again
// every 2 minutes) returns the new list once the file names another.
func TestClientGoResolvesNameServerDomain(t *testing.T) {
	t.Parallel()
	nsA, nsB, file, url := domainSetup(t)
	p := domainProducer(t, url)
	res, err := p.SendSync(ctxT(t), primitive.NewMessage("DomainTopicA", []byte("via domain")))
	require.NoError(t, err)
	require.Equal(t, primitive.SendOK, res.Status)

	resolver := primitive.NewHttpResolver("DEFAULT", url)
	require.Equal(t, []string{nsA.Addr().String()}, resolver.Resolve())
	switchList(t, file, url, nsA.Addr().String()+";"+nsB.Addr().String())
	require.Equal(t, []string{nsA.Addr().String(), nsB.Addr().String()}, resolver.Resolve())
}
