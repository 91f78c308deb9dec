package ctlbroker

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// heartbeatExt is the 904 header (BrokerHeartbeatRequestHeader).
func (b *Broker) heartbeatExt() map[string]string {
	b.mu.Lock()
	epoch := b.epoch
	b.mu.Unlock()
	return map[string]string{"clusterName": b.cfg.Cluster, "brokerAddr": b.addr, "brokerName": b.cfg.Name,
		"brokerId": b.ident(), "epoch": strconv.FormatInt(int64(epoch), 10), "maxOffset": "100",
		"confirmOffset": "100", "heartbeatTimeoutMills": strconv.FormatInt(b.cfg.HeartbeatTimeout.Milliseconds(), 10),
		"electionPriority": "2147483647"}
}

// HeartbeatSync sends 904 to every controller and waits for each reply,
// so that every reachable controller has recorded it on return. It fails
// when a controller answers a code other than 0 or none is reachable.
func (b *Broker) HeartbeatSync(ctx context.Context) error {
	ext := b.heartbeatExt()
	var errs []error
	reached := 0
	for _, addr := range b.cfg.Controllers {
		resp, err := b.Invoke(ctx, addr, remoting.BrokerHeartbeat, ext, nil)
		if err != nil {
			b.log.Debug("heartbeat: controller unreachable", "addr", addr, "error", err)
			continue
		}
		reached++
		errs = append(errs, expect("heartbeat (904) to "+addr, resp, remoting.Success))
	}
	if reached == 0 {
		errs = append(errs, errors.New("heartbeat (904): no controller reachable"))
	}
	b.markBeat()
	return errors.Join(errs...)
}

// HeartbeatOneway is one round of docs/controller.md section 7 step 7's
// oneway 904 to every controller.
func (b *Broker) HeartbeatOneway(ctx context.Context) {
	ext := b.heartbeatExt()
	for _, addr := range b.cfg.Controllers {
		if c, err := b.client(ctx, addr); err == nil {
			_ = c.InvokeOneway(remoting.NewRequest(remoting.BrokerHeartbeat, ext, nil))
		}
	}
	b.markBeat()
}

func (b *Broker) markBeat() {
	b.mu.Lock()
	b.lastBeat = time.Now()
	b.mu.Unlock()
}

// StartHeartbeats beats every interval until StopHeartbeats (Java: 1 s).
func (b *Broker) StartHeartbeats(interval time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hbStop != nil {
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	b.hbStop, b.hbDone = stop, done
	go b.heartbeatLoop(interval, stop, done)
}

func (b *Broker) heartbeatLoop(interval time.Duration, stop, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		b.HeartbeatOneway(context.Background())
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// StopHeartbeats stops the loop and returns when the last beat was sent.
func (b *Broker) StopHeartbeats() time.Time {
	b.mu.Lock()
	stop, done := b.hbStop, b.hbDone
	b.hbStop, b.hbDone = nil, nil
	b.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastBeat
}
