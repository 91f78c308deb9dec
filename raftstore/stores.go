//go:build embedded_controller

package raftstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"
)

// boltOpenTimeout bounds waiting for another process's lock on raft.db.
const boltOpenTimeout = 2 * time.Second

// parts is everything a raft.Raft runs on, plus what Close must release.
type parts struct {
	logs    raft.LogStore
	stable  raft.StableStore
	snaps   raft.SnapshotStore
	trans   raft.Transport
	hw      *highWater  // the acknowledged high-water mark (nil in memory)
	closers []io.Closer // released in order: transport first, then stores
}

// close releases every closer and joins their errors.
func (p *parts) close() error {
	var errs []error
	for _, c := range p.closers {
		errs = append(errs, c.Close())
	}
	p.closers = nil
	return errors.Join(errs...)
}

// buildParts creates the transport and stores described by a defaulted,
// validated config. On error nothing is left open.
func buildParts(cfg *Config, logger hclog.Logger) (*parts, error) {
	p := &parts{trans: cfg.Transport}
	if p.trans == nil {
		t, err := NewTCPTransport(cfg.BindAddr, cfg.AdvertiseAddr, logger)
		if err != nil {
			return nil, err
		}
		p.trans = t
	}
	if c, ok := p.trans.(raft.WithClose); ok {
		p.closers = append(p.closers, c)
	}
	var err error
	if cfg.InMemory {
		p.useInmem()
	} else {
		err = p.useDisk(cfg.Dir, logger)
	}
	if err != nil {
		return nil, errors.Join(err, p.close())
	}
	p.logs = cfg.DiskFaults.wrap(p.logs)
	if p.hw != nil {
		p.logs = &markedLogStore{LogStore: p.logs, hw: p.hw, logger: logger}
	}
	return p, nil
}

func (p *parts) useInmem() {
	store := raft.NewInmemStore()
	p.logs, p.stable, p.snaps = store, store, raft.NewInmemSnapshotStore()
}

// useDisk opens Dir/raft.db and the file snapshot store in Dir/snapshots.
func (p *parts) useDisk(dir string, logger hclog.Logger) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("raftstore: create data dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, logFileName)
	store, err := raftboltdb.New(raftboltdb.Options{
		Path:        path,
		BoltOptions: &bbolt.Options{Timeout: boltOpenTimeout},
	})
	if err != nil {
		return fmt.Errorf("raftstore: open log store %s: %w", path, err)
	}
	p.closers = append(p.closers, store)
	cached, err := raft.NewLogCache(logCacheEntries, store)
	if err != nil {
		return fmt.Errorf("raftstore: log cache: %w", err)
	}
	p.logs, p.stable = cached, store
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, snapshotRetain, logger.Named("snapshot"))
	if err != nil {
		return fmt.Errorf("raftstore: open snapshot store in %s: %w", dir, err)
	}
	p.snaps = snaps
	p.hw, err = openHighWater(dir, logger)
	if err != nil {
		return err
	}
	p.closers = append(p.closers, p.hw)
	return nil
}

// bootstrapIfNew bootstraps cfg.Peers when the stores hold no Raft state
// and this node is alone in Peers (or InMemory, for tests), and reports
// whether it did. Empty stores with other peers put g in modeUndecided
// (unless it already joined): Open's resolveEmpty probes the peers before
// bootstrapping or joining.
// Existing state must name this node (checkIdentity).
func (p *parts) bootstrapIfNew(cfg *Config, rc *raft.Config, g *voteGuard) (bool, error) {
	existing, err := raft.HasExistingState(p.logs, p.stable, p.snaps)
	if err != nil {
		return false, fmt.Errorf("raftstore: inspect existing state: %w", err)
	}
	if p.hw != nil {
		if err := p.hw.check(p.logs, p.snaps, existing, cfg.Dir); err != nil {
			return false, err
		}
	}
	if existing {
		return false, p.checkIdentity(cfg, g)
	}
	if err := checkSelfAddr(cfg.selfAddr(), p.trans.LocalAddr()); err != nil {
		return false, err
	}
	if g.currentMode() == modeCatchingUp {
		return false, nil // joined before a restart, no entry received yet
	}
	if !cfg.InMemory && len(cfg.Peers) > 1 {
		return false, g.set(modeUndecided, 0, 0)
	}
	err = raft.BootstrapCluster(rc, p.logs, p.stable, p.snaps, p.trans, cfg.configuration())
	if err != nil {
		return false, fmt.Errorf("raftstore: bootstrap: %w", err)
	}
	return true, nil
}
