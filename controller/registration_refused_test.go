//go:build embedded_controller

package controller

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/remoting"
)

// kubeName is a broker name of n bytes in the shape of a Kubernetes
// StatefulSet pod's DNS name.
func kubeName(n int) string {
	s := "rmq-broker-0.rmq-broker-headless.messaging-production.svc.cluster.local-"
	return s + strings.Repeat("x", n-len(s))
}

func applyIDFields(name, addr string) map[string]string {
	return map[string]string{"clusterName": "c", "brokerName": name, "appliedBrokerId": "1",
		"registerCheckCode": addr + ";1700000000000"}
}

// TestJavaBrokerWithLongNameRegisters: a Java broker whose brokerName is
// 133 bytes runs under Java's DLedger Controller, which checks no length;
// ours answered every registration "2005 brokerName must be at most 127
// bytes (got 133)" and the broker never got an id. The default limit is
// the longest Kubernetes name, 253 bytes; such a set is elected for,
// survives a snapshot and restore, and 254 bytes are still refused.
func TestJavaBrokerWithLongNameRegisters(t *testing.T) {
	ic := newCluster(t, 1)
	ctl := ic.leader(t)
	for _, n := range []int{133, 253} {
		name := kubeName(n)
		resp := invoke(t, ctl.Addr(), remoting.ControllerApplyBrokerID, applyIDFields(name, "10.0.0.1:10911"), nil)
		require.Equal(t, codeSuccess, resp.Code, "%d bytes: %s", n, resp.Remark)
		elect := map[string]string{"clusterName": "c", "brokerName": name, "brokerId": "1", "designateElect": "false"}
		resp = invoke(t, ctl.Addr(), remoting.ControllerElectMaster, elect, nil)
		require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	}
	resp := invoke(t, ctl.Addr(), remoting.ControllerApplyBrokerID, applyIDFields(kubeName(254), "10.0.0.1:10911"), nil)
	require.Equal(t, remoting.ControllerInvalidRequest, resp.Code)
	require.Equal(t, "brokerName must be at most 253 bytes (got 254)", resp.Remark)

	restored := NewFSM(nil)
	require.NoError(t, restored.Restore(io.NopCloser(bytes.NewReader(snapshotBytes(t, ctl.fsm)))))
	var want, got *state
	ctl.fsm.read(func(s *state) { want = s.Clone() })
	restored.read(func(s *state) { got = s.Clone() })
	require.Equal(t, want, got)
	ss, ok := got.SyncState(kubeName(253))
	require.True(t, ok)
	require.Equal(t, int64(1), ss.MasterBrokerID)
}

// TestBrokerRegistrationRefusalIsVisible: a broker refused its own
// registration (1013, 1003) or heartbeat (904, oneway: the broker sees no
// answer) is logged at warn on the controller, naming the broker's
// address, the field and the key to raise (none past the ceiling or for a
// rule), rate-limited, and counted by request and field.
func TestBrokerRegistrationRefusalIsVisible(t *testing.T) {
	logger, lines := testlog.Capture(t, "ctl", hclog.Warn)
	reg := metrics.NewProcessRegistry()
	m := metrics.NewController(reg)
	ic := newCluster(t, 1, withOptions(WithMetrics(m)), withLogger(logger), withProps("controllerMaxBrokerSets=1"))
	ctl := ic.leader(t)
	call := func(code int32, ext map[string]string) *remoting.Command {
		return invoke(t, ctl.Addr(), code, ext, nil)
	}

	require.Equal(t, remoting.ControllerInvalidRequest, call(remoting.ControllerApplyBrokerID, applyIDFields(kubeName(254), "10.7.0.1:10911")).Code)
	require.Equal(t, remoting.ControllerInvalidRequest, call(remoting.ControllerApplyBrokerID, applyIDFields(kubeName(300), "10.7.0.2:10911")).Code)
	require.Equal(t, codeSuccess, call(remoting.ControllerApplyBrokerID, applyIDFields("broker-a", "10.7.0.3:10911")).Code)
	require.Equal(t, remoting.ControllerInvalidRequest, call(remoting.ControllerApplyBrokerID, applyIDFields("broker-b", "10.7.0.4:10911")).Code)
	register := map[string]string{"clusterName": "c", "brokerName": "broker-a", "brokerId": "1", "brokerAddress": "10.7.0.3:bad"}
	require.Equal(t, remoting.ControllerInvalidRequest, call(remoting.ControllerRegisterBroker, register).Code)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, ctl.Addr(), remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	beat := map[string]string{"clusterName": "c", "brokerName": kubeName(300), "brokerAddr": "10.7.0.5:10911", "brokerId": "1"}
	require.NoError(t, c.InvokeOneway(remoting.NewRequest(remoting.BrokerHeartbeat, beat, nil)))

	want := []string{ // broker, then field and raise
		`10.7.0.1:10911 field=brokerName raise=controllerMaxNameLength`,
		`10.7.0.2:10911 field=brokerName raise="none: 255 bytes is the ceiling"`,
		`10.7.0.4:10911 field=none raise=controllerMaxBrokerSets`,
		`10.7.0.3:bad field=brokerAddress raise="none: a rule, not a bound"`,
		`10.7.0.5:10911 field=brokerName raise="none: 255 bytes is the ceiling"`,
	}
	remote := regexp.MustCompile(` remote=127\.0\.0\.1:[0-9]+`)
	require.Eventually(t, func() bool {
		text := remote.ReplaceAllString(lines.String(), "")
		for _, w := range want {
			if !strings.Contains(text, "broker="+w) {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond, "%s", lines)
	require.Equal(t, 5, lines.Count("broker registration refused"), "%s", lines)

	fs, _ := metricstest.ScrapeHandler(t, reg.Handler(nil))
	const family = "rocketmq_controller_broker_registrations_refused_total"
	require.Equal(t, 2.0, fs.Sum(family, "request", "apply_broker_id", "field", "brokerName"))
	require.Equal(t, 1.0, fs.Sum(family, "request", "apply_broker_id", "field", "none"))
	require.Equal(t, 1.0, fs.Sum(family, "request", "register_broker", "field", "brokerAddress"))
	require.Equal(t, 1.0, fs.Sum(family, "request", "heartbeat", "field", "brokerName"))
}
