package ctlbroker

import (
	"context"
	"errors"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// LiveSet is a broker set left running: its brokers heartbeat the
// controllers every HeartbeatInterval, the first is the master with every
// broker in its sync-state set, and all are registered with the
// NameServers in their role.
type LiveSet struct {
	Brokers []*Broker
	Master  MasterView
}

// StartSet plays n brokers of cfg's broker set through id assignment,
// registration, heartbeats, the first election, the sync-state set grown
// to all and the NameServer registration, and keeps them running until
// Close. On error the brokers started are closed.
func StartSet(ctx context.Context, cfg Config, n int, heartbeatInterval time.Duration) (*LiveSet, error) {
	s := &LiveSet{}
	if err := s.start(ctx, cfg, n, heartbeatInterval); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

func (s *LiveSet) start(ctx context.Context, cfg Config, n int, every time.Duration) error {
	ids := make([]int64, 0, n)
	for range n {
		b, err := New(cfg)
		if err != nil {
			return err
		}
		s.Brokers = append(s.Brokers, b)
		if _, err := b.ApplyID(ctx); err != nil {
			return err
		}
		if _, err := b.Register(ctx); err != nil {
			return err
		}
		if err := b.HeartbeatSync(ctx); err != nil {
			return err
		}
		ids = append(ids, b.ID())
	}
	if err := s.elect(ctx); err != nil {
		return err
	}
	for _, b := range s.Brokers {
		b.SetEpoch(s.Master.Epoch)
		b.StartHeartbeats(every)
	}
	if err := s.growSyncStateSet(ctx, ids); err != nil {
		return err
	}
	for _, b := range s.Brokers {
		id := b.ID()
		if id == s.Master.ID {
			id = MasterID
		}
		if _, err := b.RegisterNameServers(ctx, id, s.Master.Epoch); err != nil {
			return err
		}
	}
	return nil
}

// elect makes the first broker the master (1002).
func (s *LiveSet) elect(ctx context.Context) error {
	resp, err := s.Brokers[0].Elect(ctx)
	if err != nil {
		return err
	}
	if err := expect("elect master (1002)", resp, remoting.Success); err != nil {
		return err
	}
	s.Master, err = ReadMaster(resp)
	return err
}

// growSyncStateSet puts ids in the sync-state set (1001), when more than
// the master.
func (s *LiveSet) growSyncStateSet(ctx context.Context, ids []int64) error {
	if len(ids) < 2 {
		return nil
	}
	resp, err := s.Brokers[0].Alter(ctx, s.Master.Epoch, s.Master.SSEpoch, ids...)
	if err != nil {
		return err
	}
	if err := expect("alter sync-state set (1001)", resp, remoting.Success); err != nil {
		return err
	}
	_, err = wire.DecodeSyncStateSet(resp.Body)
	return err
}

// Close stops the brokers' heartbeats and closes them.
func (s *LiveSet) Close() error {
	var errs []error
	for _, b := range s.Brokers {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}
