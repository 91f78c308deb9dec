//go:build embedded_controller

package raftstore

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

func validConfig() Config {
	return Config{
		SelfID:   "n0",
		Peers:    []Peer{{"n0", "127.0.0.1:9880"}, {"n1", "127.0.0.1:9881"}},
		Dir:      "/tmp/x",
		BindAddr: "127.0.0.1:9880",
	}
}

func TestValidateAcceptsGoodConfig(t *testing.T) {
	cfg := validConfig()
	require.NoError(t, cfg.Validate())
	cfg.Dir, cfg.InMemory = "", true
	require.NoError(t, cfg.Validate())
}

func TestValidateReportsEveryProblem(t *testing.T) {
	var cfg Config
	err := cfg.Validate()
	require.ErrorIs(t, err, ErrInvalidConfig)
	for _, field := range []string{"SelfID", "Peers", "Dir", "BindAddr"} {
		require.ErrorContains(t, err, field)
	}
}

func TestValidatePeers(t *testing.T) {
	cfg := validConfig()
	cfg.SelfID = "n9"
	cfg.Peers = append(cfg.Peers, Peer{"n1", "127.0.0.1:9881"}, Peer{"", "nohostport"})
	err := cfg.Validate()
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.ErrorContains(t, err, `SelfID: "n9" is not one of Peers`)
	require.ErrorContains(t, err, `Peers[2].ID: duplicate id "n1"`)
	require.ErrorContains(t, err, `Peers[2].RaftAddr: duplicate address`)
	require.ErrorContains(t, err, "Peers[3].ID: must not be empty")
	require.ErrorContains(t, err, `Peers[3].RaftAddr: "nohostport" is not host:port`)
}

func TestValidateTimeouts(t *testing.T) {
	cfg := validConfig()
	cfg.HeartbeatTimeout = 100 * time.Millisecond
	cfg.LeaderLeaseTimeout = 200 * time.Millisecond
	cfg.ElectionTimeout = 50 * time.Millisecond
	cfg.CommitTimeout = -time.Second
	err := cfg.Validate()
	require.ErrorContains(t, err, "LeaderLeaseTimeout: 200ms exceeds HeartbeatTimeout 100ms")
	require.ErrorContains(t, err, "ElectionTimeout: 50ms is below HeartbeatTimeout 100ms")
	require.ErrorContains(t, err, "CommitTimeout")
}

func TestDefaultsAreValidForRaft(t *testing.T) {
	cfg := validConfig()
	d := cfg.withDefaults()
	require.Equal(t, DefaultHeartbeatTimeout, d.HeartbeatTimeout)
	require.Equal(t, uint64(DefaultSnapshotThreshold), d.SnapshotThreshold)
	require.Equal(t, uint64(DefaultTrailingLogs), d.TrailingLogs)
	require.NotNil(t, d.Logger)
	require.Zero(t, cfg.HeartbeatTimeout, "withDefaults must not touch the original")
	rc := d.raftConfig(d.Logger)
	require.NoError(t, raft.ValidateConfig(rc))
	require.True(t, rc.BatchApplyCh, "concurrent Applies are queued for group commit")
	require.Equal(t, maxAppendEntries, rc.MaxAppendEntries)
}
