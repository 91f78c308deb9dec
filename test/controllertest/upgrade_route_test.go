//go:build embedded_controller

package controllertest

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// startRouteBroker registers a topic with every NameServer and again every
// 500 ms (a broker's periodic registration, faster), so that a restarted
// NameServer learns the route.
func startRouteBroker(t *testing.T, ns []string) *fakebroker.Broker {
	b, err := fakebroker.New(fakebroker.Config{BrokerName: "broker-up", NameServers: ns,
		Topics: []fakebroker.TopicConfig{fakebroker.Topic(upTopic, 4)}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			for _, addr := range ns {
				rctx, rcancel := context.WithTimeout(ctx, time.Second)
				_, _ = b.Register(rctx, addr)
				rcancel()
			}
			if !sleepCtx(ctx, 500*time.Millisecond) {
				return
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait(); _ = b.Close() })
	for _, addr := range ns {
		require.Eventually(t, func() bool { return lookupOn(addr) == nil }, waitLimit, 50*time.Millisecond, "route on %s", addr)
	}
	return b
}

// upTopic is the topic the lookups ask for.
const upTopic = "UpgradeTopic"

// leaderMonitor asks every node's 1005 every 50 ms and keeps the longest
// time no node said it leads, and when a node first said cluster version 2.
type leaderMonitor struct {
	mu      sync.Mutex
	longest time.Duration
	raised  time.Time
	cancel  context.CancelFunc
	done    chan struct{}
}

func startLeaderMonitor(uc *upCluster) *leaderMonitor {
	ctx, cancel := context.WithCancel(context.Background())
	m := &leaderMonitor{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		last := time.Now()
		for sleepCtx(ctx, 50*time.Millisecond) {
			now, led := time.Now(), false
			for _, nd := range uc.nodes {
				md := metadata(nd.ctl, 300*time.Millisecond)
				led = led || (md != nil && md["isLeader"] == "true")
				m.mu.Lock()
				if md != nil && md["controllerClusterVersion"] == "2" && m.raised.IsZero() {
					m.raised = now
				}
				m.mu.Unlock()
			}
			m.mu.Lock()
			if led {
				last = now
			} else {
				m.longest = max(m.longest, now.Sub(last))
			}
			m.mu.Unlock()
		}
	}()
	return m
}

func (m *leaderMonitor) raisedAt() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.raised
}

// stop ends the monitor and returns the longest leaderless time.
func (m *leaderMonitor) stop() time.Duration {
	m.cancel()
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.longest
}

// lookupOn asks one NameServer for upTopic's route.
func lookupOn(ns string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, ns, remoting.ClientOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	return checkRoute(ctx, c)
}

func checkRoute(ctx context.Context, c *remoting.Client) error {
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": upTopic}, nil))
	if err != nil {
		return err
	}
	if resp.Code != remoting.Success {
		return &routeError{code: resp.Code, remark: resp.Remark}
	}
	if !strings.Contains(string(resp.Body), "broker-up") {
		return &routeError{code: resp.Code, remark: "route without broker-up: " + string(resp.Body)}
	}
	return nil
}

// routeError is a NameServer's answer that is not the route.
type routeError struct {
	code   int32
	remark string
}

func (e *routeError) Error() string { return "code " + strconv.Itoa(int(e.code)) + ": " + e.remark }
