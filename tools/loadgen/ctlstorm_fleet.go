//go:build embedded_controller

package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/brokerflow"
)

// ctlSet is one broker set: brokers[0] is the master after setup, every
// broker in the sync-state set.
type ctlSet struct {
	name        string
	brokers     []*brokerflow.Broker
	masterEpoch int32
	ssEpoch     int32
}

// master is the set's master broker.
func (s *ctlSet) master() *brokerflow.Broker { return s.brokers[0] }

// ids are the brokers' controller ids in ascending order.
func (s *ctlSet) ids() []int64 {
	out := make([]int64, 0, len(s.brokers))
	for _, b := range s.brokers {
		out = append(out, b.ID())
	}
	return out
}

// newFleet creates co.sets sets of co.brokers brokers and runs docs/controller.md
// section 7 steps 3-8 for each (1012/1013 ids 1..n, 1003, 904, the first
// election naming broker 1, the master's 1001 growing the sync-state set to
// every broker), ctlSetupWorkers sets at a time. Each broker beats from
// its first 904 on.
func newFleet(g *ctlGroup, co ctlOptions, log hclog.Logger) ([]*ctlSet, error) {
	sets := make([]*ctlSet, co.sets)
	ctx, cancel := context.WithTimeout(context.Background(), ctlSetupTimeout)
	defer cancel()
	var next atomic.Int64
	errs := make([]error, ctlSetupWorkers)
	var wg sync.WaitGroup
	for w := range ctlSetupWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < co.sets && errs[w] == nil; i = int(next.Add(1)) - 1 {
				sets[i], errs[w] = setupSet(ctx, g.addrs(), fmt.Sprintf("ctl-set-%04d", i), co, log)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeFleet(sets)
		return nil, err
	}
	return sets, nil
}

// setupSet starts the brokers of one set and makes broker 1 its master.
func setupSet(ctx context.Context, ctls []string, name string, co ctlOptions, log hclog.Logger) (*ctlSet, error) {
	s := &ctlSet{name: name}
	for range co.brokers {
		b, err := brokerflow.New(brokerflow.Config{Name: name, Controllers: ctls, HeartbeatTimeout: co.hbTimeout,
			Logger: log.Named("broker")})
		if err != nil {
			closeFleet([]*ctlSet{s})
			return nil, err
		}
		s.brokers = append(s.brokers, b)
	}
	if err := s.bootstrap(ctx, co.hbInterval); err != nil {
		closeFleet([]*ctlSet{s})
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// bootstrap runs steps 3-8 for every broker of s; each beats every
// interval from its first 904 on.
func (s *ctlSet) bootstrap(ctx context.Context, interval time.Duration) error {
	for i, b := range s.brokers {
		id, err := b.ApplyID(ctx)
		if err != nil {
			return err
		}
		if id != int64(i+1) {
			return fmt.Errorf("broker %d got id %d", i+1, id)
		}
		if _, err := b.Register(ctx); err != nil {
			return err
		}
		if err := b.HeartbeatSync(ctx); err != nil {
			return err
		}
		b.StartHeartbeats(interval)
	}
	resp, err := s.master().Elect(ctx)
	if err != nil {
		return err
	}
	if resp.Code != remoting.Success || resp.ExtFields["masterBrokerId"] != "1" || resp.ExtFields["masterEpoch"] != "1" {
		return fmt.Errorf("first election: code %d %s %v", resp.Code, resp.Remark, resp.ExtFields)
	}
	s.masterEpoch, s.ssEpoch = 1, 1
	for _, b := range s.brokers {
		b.SetEpoch(1)
	}
	return s.alter(ctx, s.ids())
}

// alter is the master's 1001 setting the sync-state set to ids.
func (s *ctlSet) alter(ctx context.Context, ids []int64) error {
	resp, err := s.master().Alter(ctx, s.masterEpoch, s.ssEpoch, ids...)
	if err != nil {
		return err
	}
	if resp.Code != remoting.Success {
		return fmt.Errorf("alter (1001): code %d %s", resp.Code, resp.Remark)
	}
	if got := resp.ExtFields["newSyncStateSetEpoch"]; got != strconv.Itoa(int(s.ssEpoch+1)) {
		return fmt.Errorf("alter (1001): newSyncStateSetEpoch %q, want %d", got, s.ssEpoch+1)
	}
	s.ssEpoch++
	return nil
}

// closeFleet closes every broker of sets (nil sets are skipped).
func closeFleet(sets []*ctlSet) {
	var wg sync.WaitGroup
	for _, s := range sets {
		if s == nil {
			continue
		}
		for _, b := range s.brokers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = b.Close()
			}()
		}
	}
	wg.Wait()
}
