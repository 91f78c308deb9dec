package deploy

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// Both targets of the shipped Dockerfile, built on the empty base from
// binaries made by the build stage's script on the host, run under podman
// as they ship: the image config keeps the user and the HEALTHCHECK, the
// process runs as 65532, -version names the build, /healthz answers through the published metrics
// port, the HEALTHCHECK passes, a broker registered through the published
// remoting port is found by a GET_ROUTEINFO_BY_TOPIC (105) from the host,
// and `podman stop` (SIGTERM) ends in the graceful shutdown and exit 0.
// The controller target runs with its Controller on, a single-node Raft
// group, which must become ready. Both run with TZ=Asia/Shanghai, which
// the logs' times must follow (the empty base has no zoneinfo: the
// binaries carry it).
func TestImageFromScratchServes(t *testing.T) {
	e := imageEngine(t)
	dir := scratchContext(t)
	controllerEnv := []string{"TZ=Asia/Shanghai", "NAMESRV_ENABLE_CONTROLLER_IN_NAMESRV=true",
		"NAMESRV_CONTROLLER_DLEGER_PEERS=n0-127.0.0.1:9878", "NAMESRV_CONTROLLER_RAFT_PEERS=n0-127.0.0.1:9879",
		"NAMESRV_CONTROLLER_DLEGER_SELF_ID=n0", "NAMESRV_CONTROLLER_STORE_PATH=/data/controller"}
	for target, env := range map[string][]string{"namesrv": {"TZ=Asia/Shanghai"}, "namesrv-controller": controllerEnv} {
		t.Run(target, func(t *testing.T) {
			e := engine{t: t, bin: e.bin, runtime: e.runtime}
			tag := e.build(dir, target)
			cfg := e.inspectImage(tag)
			require.Equal(t, imageUser, cfg.User)
			require.Equal(t, []string{"CMD", imageBinary, "-c", imageConfig, "-healthcheck"}, cfg.Healthcheck.Test)
			require.Equal(t, "imagetest", cfg.Labels["org.opencontainers.image.revision"])

			id := e.start(tag, env...)
			metrics := "http://" + e.hostPort(id, "5557")
			requireHTTP200(t, metrics+"/healthz")
			requireHTTP200(t, metrics+"/readyz")
			requireProcessUser(t, e, id, dir)
			version := e.must("exec", id, imageBinary, "-version")
			require.Contains(t, version, "namesrv 0.0.0-imagetest (revision imagetest,", "build.sh's -ldflags")
			e.must("healthcheck", "run", id)
			require.Equal(t, "healthy", e.inspect(id, "{{.State.Health.Status}}"))
			requireLookupFromHost(t, e.hostPort(id, "9876"))
			requireGracefulStop(t, e, id)
		})
	}
}

// requireProcessUser requires the container's process to run as 65532:
// podman top names its user and group by the image's passwd and group,
// which are the files build.sh wrote under dir.
func requireProcessUser(t *testing.T, e engine, id, dir string) {
	f := strings.Fields(e.must("top", id, "user", "group"))
	require.Len(t, f, 4, "podman top: %v", f)
	require.Equal(t, "65532", idOf(t, filepath.Join(dir, "out/rootfs/etc/passwd"), f[2]), "the process's user")
	require.Equal(t, "65532", idOf(t, filepath.Join(dir, "out/rootfs/etc/group"), f[3]), "the process's group")
}

// idOf is the id of name in a passwd or group file, or name when it is
// no entry's (podman top prints ids without a name as they are).
func idOf(t *testing.T, file, name string) string {
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Split(line, ":"); len(f) > 2 && f[0] == name {
			return f[2]
		}
	}
	return name
}

// requireHTTP200 polls url until it answers 200.
func requireHTTP200(t *testing.T, url string) {
	client := http.Client{Timeout: 2 * time.Second}
	poll.Until(t, url+" to answer 200", 60*time.Second, 200*time.Millisecond, func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
}

// requireLookupFromHost registers a broker with a topic at ns (the
// published remoting port) and looks the topic up there with the admin
// client: RocketMQ's wire through the container's port forwarding.
func requireLookupFromHost(t *testing.T, ns string) {
	b, err := fakebroker.New(fakebroker.Config{BrokerName: "broker-image", NameServers: []string{ns},
		Topics: []fakebroker.TopicConfig{fakebroker.Topic("image-topic", 4)}})
	require.NoError(t, err)
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, b.RegisterAll(ctx))
	c := admin.New(admin.Options{})
	defer c.Close()
	rd, err := c.TopicRoute(ctx, ns, "image-topic")
	require.NoError(t, err)
	require.Len(t, rd.BrokerDatas, 1)
	require.Equal(t, "broker-image", rd.BrokerDatas[0].BrokerName)
	require.Equal(t, b.Addr(), rd.BrokerDatas[0].BrokerAddrs[0])
	require.Len(t, rd.QueueDatas, 1)
	require.EqualValues(t, 4, rd.QueueDatas[0].ReadQueueNums)
}

// requireGracefulStop stops the container (SIGTERM, then SIGKILL after
// 30 s) and requires exit 0 and the shutdown's log line.
func requireGracefulStop(t *testing.T, e engine, id string) {
	e.must("stop", "-t", "30", id)
	require.Equal(t, "0", e.inspect(id, "{{.State.ExitCode}}"))
	logs := e.logs(id)
	require.Contains(t, logs, "shutting down: signal=terminated", logs)
	require.Contains(t, logs, "+0800 [INFO]", "TZ=Asia/Shanghai: the time zone database is in the binary")
}
