package main

import (
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// keepAlivePeriod is how often keepAlive refreshes every broker: well
// inside the NameServer's 120 s broker timeout.
const keepAlivePeriod = 20 * time.Second

// keepAlive sends a oneway BROKER_HEARTBEAT (BrokerHeartbeatRequestHeader,
// as BrokerOuterAPI.sendHeartbeat) for every broker of topo over c every
// keepAlivePeriod until stop is closed, so that brokers registered early in
// a long run (a slow registration of 1M topics) do not expire before it
// ends; real brokers re-register every 30 s. Heartbeats of brokers not yet
// registered are ignored by the NameServer. It returns a stop function.
func keepAlive(c *remoting.Client, topo *topology) func() {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(keepAlivePeriod)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			for i := range topo.brokers {
				b := &topo.brokers[i]
				_ = c.InvokeOneway(remoting.NewRequest(remoting.BrokerHeartbeat, map[string]string{
					"clusterName": benchCluster, "brokerAddr": b.addr, "brokerName": b.name}, nil))
			}
		}
	}()
	return func() { close(stop); <-done }
}
