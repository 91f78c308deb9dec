//go:build embedded_controller

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/ctlbroker"
)

// ctlSet is one broker set: brokers[0] is the master after setup, every
// broker in the sync-state set.
type ctlSet struct {
	name        string
	brokers     []*ctlbroker.Broker
	masterEpoch int32
	ssEpoch     int32
}

// master is the set's master broker.
func (s *ctlSet) master() *ctlbroker.Broker { return s.brokers[0] }

// ids are the brokers' controller ids in ascending order.
func (s *ctlSet) ids() []int64 {
	out := make([]int64, 0, len(s.brokers))
	for _, b := range s.brokers {
		out = append(out, b.ID())
	}
	slices.Sort(out)
	return out
}

// byID is the broker of s with controller id id, or nil.
func (s *ctlSet) byID(id int64) *ctlbroker.Broker {
	for _, b := range s.brokers {
		if b.ID() == id {
			return b
		}
	}
	return nil
}

// newFleet creates co.sets sets of co.brokers brokers and runs docs/controller.md
// section 7 steps 3-8 for each (1012/1013, 1003, 904, the first
// election naming broker 1, the master's 1001 growing the sync-state set to
// every broker), ctlSetupWorkers sets at a time. Each broker beats from
// its first 904 on.
func newFleet(ctls []string, prefix string, co ctlOptions, log hclog.Logger) ([]*ctlSet, error) {
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
				sets[i], errs[w] = setupSet(ctx, ctls, fmt.Sprintf("%s-%04d", prefix, i), co, log)
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
		b, err := ctlbroker.New(ctlbroker.Config{Name: name, Controllers: ctls, HeartbeatTimeout: co.hbTimeout,
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
// interval from its first 904 on. Every step is retried (ctlSetupTries)
// as a broker would after a failed call: a loaded machine can lose the
// Raft leadership during the setup, leaving a commit unknown.
func (s *ctlSet) bootstrap(ctx context.Context, interval time.Duration) error {
	for _, b := range s.brokers {
		if err := retry(func() error { _, err := b.ApplyID(ctx); return err }); err != nil {
			return err
		}
		if err := retry(func() error { _, err := b.Register(ctx); return err }); err != nil {
			return err
		}
		if err := retry(func() error { return b.HeartbeatSync(ctx) }); err != nil {
			return err
		}
		b.StartHeartbeats(interval)
	}
	if err := retry(func() error { return s.electFirst(ctx) }); err != nil {
		return err
	}
	return retry(func() error { return s.alter(ctx, s.ids()) })
}

// retry runs step up to ctlSetupTries times until it succeeds.
func retry(step func() error) error {
	var err error
	for range ctlSetupTries {
		if err = step(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// electFirst is broker 1's 1002; 2011 naming broker 1 is a retried
// election that had committed.
func (s *ctlSet) electFirst(ctx context.Context) error {
	resp, err := s.master().Elect(ctx)
	if err != nil {
		return err
	}
	ok := resp.Code == remoting.Success || resp.Code == remoting.ControllerMasterStillExist
	if !ok || resp.ExtFields["masterBrokerId"] != strconv.FormatInt(s.master().ID(), 10) || resp.ExtFields["masterEpoch"] != "1" {
		return fmt.Errorf("first election: code %d %s %v", resp.Code, resp.Remark, resp.ExtFields)
	}
	s.masterEpoch, s.ssEpoch = 1, 1
	for _, b := range s.brokers {
		b.SetEpoch(1)
	}
	return nil
}

// alter is the master's 1001 setting the sync-state set to ids; when it
// fails, 1004 tells whether it had committed.
func (s *ctlSet) alter(ctx context.Context, ids []int64) error {
	resp, err := s.master().Alter(ctx, s.masterEpoch, s.ssEpoch, ids...)
	if err == nil && resp.Code != remoting.Success {
		err = fmt.Errorf("alter (1001): code %d %s", resp.Code, resp.Remark)
	}
	if err == nil && resp.ExtFields["newSyncStateSetEpoch"] != strconv.Itoa(int(s.ssEpoch+1)) {
		err = fmt.Errorf("alter (1001): newSyncStateSetEpoch %q, want %d", resp.ExtFields["newSyncStateSetEpoch"], s.ssEpoch+1)
	}
	if err != nil && s.committed(ctx, ids) {
		err = nil
	}
	if err == nil {
		s.ssEpoch++
	}
	return err
}

// committed reports whether 1004 shows the sync-state set ids at the next epoch.
func (s *ctlSet) committed(ctx context.Context, ids []int64) bool {
	resp, err := s.master().ReplicaInfo(ctx)
	if err != nil || resp.Code != remoting.Success {
		return false
	}
	var ss wire.SyncStateSet
	if json.Unmarshal(resp.Body, &ss) != nil {
		return false
	}
	return ss.SyncStateSetEpoch == s.ssEpoch+1 && slices.Equal(ss.SyncStateSet, ids)
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
