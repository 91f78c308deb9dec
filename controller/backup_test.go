//go:build embedded_controller

package controller

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/internal/backupfile"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
)

// TestBackupServedByTheReadyLeaderOnly: ControllerBackup (42101) on the
// leader answers the backup file of a state holding every acknowledged
// write, with its checksum in the header; a follower answers 2007 naming
// the leader.
func TestBackupServedByTheReadyLeaderOnly(t *testing.T) {
	ic := newCluster(t, 3)
	leader := ic.leader(t)
	for i := range 5 {
		resp := invoke(t, leader.Addr(), remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c",
			"brokerName": fmt.Sprintf("b%d", i), "appliedBrokerId": "1", "registerCheckCode": "127.0.0.1:10911;1"}, nil)
		require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	}
	resp := invoke(t, leader.Addr(), remoting.ControllerBackup, nil, nil)
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	b, err := backupfile.Decode(resp.Body, maxBackupBytes)
	require.NoError(t, err)
	require.Equal(t, b.Sum(), resp.ExtFields["sha256"])
	restored := NewFSM(testLogger(t))
	require.NoError(t, restored.Restore(io.NopCloser(bytes.NewReader(b.Data))))
	restored.read(func(s *state) { require.Len(t, s.BrokerNames(), 5, "every acknowledged set is in the backup") })

	follower := ic.follower(t)
	resp = invoke(t, follower.Addr(), remoting.ControllerBackup, nil, nil)
	require.Equal(t, remoting.ControllerNotLeader, resp.Code)
	require.Equal(t, leader.Node().ID(), resp.ExtFields["controllerLeaderId"])
	require.Empty(t, resp.Body)
}

// TestBackupStateSurvivesRestoreAndRestart: random states, with the
// adversarial names and values of the snapshot property test, go through
// a backup file and RestoreBackup into a new data directory; a node
// started on it restores exactly the state (snapshot bytes and accounted
// size included), again after a restart, and its own backup of it is the
// same state. RMQ_SEED replays a run.
func TestBackupStateSurvivesRestoreAndRestart(t *testing.T) {
	seed := uint64(rand.Int64())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed=%d (replay: RMQ_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for run := range 8 {
		g := &seqGen{c: rngChooser{rand.New(rand.NewPCG(rng.Uint64(), 0))}, f: quietFSM(t),
			names: adversarialNames(512), live: newFakeLive()}
		for range 40 + rng.IntN(80) {
			g.step()
		}
		data := snapshotBytes(t, g.f.fsm)
		b := &backupfile.Backup{Index: 1 + rng.Uint64N(1<<40), Term: 1 + rng.Uint64N(1<<20), Taken: time.Now(), Data: data}
		dec, err := backupfile.Decode(b.Encode(), maxBackupBytes)
		require.NoError(t, err)
		t.Run(strconv.Itoa(run), func(t *testing.T) { requireRestoredNode(t, dec, g.f.fsm) })
	}
}

// requireRestoredNode restores b on a one-node group and checks the state
// against want, at start, after a restart and in the node's own backup.
func requireRestoredNode(t *testing.T, b *backupfile.Backup, want *FSM) {
	lns, peers := listenPeers(t, []string{"n0"})
	lns[0].Close()
	trans, err := raftstore.NewTCPTransport("127.0.0.1:0", "", testLogger(t))
	require.NoError(t, err)
	raftAddr := string(trans.LocalAddr())
	cfg := testControllerConfig(t, "n0", peers, "n0-"+raftAddr)
	group, err := RestoreBackup(cfg, b, "")
	require.NoError(t, err)
	require.NotEmpty(t, group)
	for round := range 2 {
		machine := NewFSM(testLogger(t))
		node, err := raftstore.Open(raftstore.Config{SelfID: "n0", Peers: []raftstore.Peer{{ID: "n0", RaftAddr: raftAddr}},
			Dir: cfg.ControllerStorePath, Transport: trans, Logger: testLogger(t), CheckSnapshot: machine.checkSnapshot}, machine)
		require.NoError(t, err)
		requireSameState(t, want, machine)
		raftstore.WaitForLeader(t, node)
		own, err := node.Backup(context.Background(), maxBackupBytes)
		require.NoError(t, err)
		require.Equal(t, b.Data, own.Data, "round %d: the node's own backup", round)
		require.NoError(t, node.Close())
		if trans, err = raftstore.NewTCPTransport(raftAddr, "", testLogger(t)); err != nil {
			require.NoError(t, err)
		}
	}
	trans.Close()
}

// requireSameState compares two FSMs' states and their snapshot bytes.
func requireSameState(t *testing.T, want, got *FSM) {
	t.Helper()
	var w, g *state
	want.read(func(s *state) { w = s.Clone() })
	got.read(func(s *state) { g = s.Clone() })
	require.Equal(t, w, g, "restored state")
	require.True(t, bytes.Equal(snapshotBytes(t, want), snapshotBytes(t, got)), "same snapshot bytes")
	require.Equal(t, w.bytes(), g.bytes(), "accounted size")
}

// TestRestoreRefusesStateTheBinaryCannotRead: a backup file whose
// checksum holds but whose state is not a snapshot this binary restores
// (random bytes, a truncated snapshot) is refused before anything is
// written.
func TestRestoreRefusesStateTheBinaryCannotRead(t *testing.T) {
	f := quietFSM(t)
	registerSet(f, "c", "b", 3)
	good := snapshotBytes(t, f.fsm)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	junk := make([]byte, 64+rng.IntN(512))
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	for name, data := range map[string][]byte{"random": junk, "truncated": good[:len(good)/2], "empty": nil} {
		t.Run(name, func(t *testing.T) {
			lns, peers := listenPeers(t, []string{"n0"})
			lns[0].Close()
			cfg := testControllerConfig(t, "n0", peers, fakeRaftPeers([]string{"n0"}))
			_, err := RestoreBackup(cfg, &backupfile.Backup{Index: 5, Term: 2, Data: data}, "")
			require.ErrorIs(t, err, raftstore.ErrBadBackup)
			require.ErrorContains(t, err, "does not restore")
			_, statErr := os.Stat(filepath.Join(cfg.ControllerStorePath, "raft.db"))
			require.ErrorIs(t, statErr, os.ErrNotExist, "nothing written")
		})
	}
}

// TestBackupNeedsAdminWithACLAndRunsOneAtATime: with aclEnable an
// unsigned backup request is refused (16) and one signed by an admin
// account served; while a backup runs, another is answered 2 at once.
func TestBackupNeedsAdminWithACLAndRunsOneAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte("accounts: [{accessKey: admin01, secretKey: adminSecret, admin: true}]\n"), 0o600))
	ctl := startRealController(t, testLogger(t), "aclEnable=true", "aclConfigPath="+path)
	require.Eventually(t, ctl.IsReadyLeader, 10*time.Second, 10*time.Millisecond)
	resp := invoke(t, ctl.Addr(), remoting.ControllerBackup, nil, nil)
	require.Equal(t, codeNoPermission, resp.Code, resp.Remark)
	require.Empty(t, resp.Body)

	signed := func() *remoting.Command {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := remoting.Dial(ctx, ctl.Addr(), remoting.ClientOptions{Sign: func(r *remoting.Command) {
			acl.Sign(r, "admin01", "adminSecret", "")
		}})
		require.NoError(t, err)
		defer c.Close()
		resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerBackup, nil, nil))
		require.NoError(t, err)
		return resp
	}
	resp = signed()
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	_, err := backupfile.Decode(resp.Body, maxBackupBytes)
	require.NoError(t, err)

	ctl.backupSlot.Lock() // a backup is being taken
	resp = signed()
	ctl.backupSlot.Unlock()
	require.Equal(t, codeSystemBusy, resp.Code)
	require.Equal(t, "a backup is being taken", resp.Remark)
}
