//go:build embedded_controller

package raftstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// BenchmarkHighWaterRaise is what the mark adds to each log write: one
// record written in place (fsync'd at most once a second).
func BenchmarkHighWaterRaise(b *testing.B) {
	hw, err := openHighWater(filepath.Join(b.TempDir(), "data"), hclog.NewNullLogger())
	if err != nil {
		b.Fatal(err)
	}
	defer hw.Close()
	for i := range b.N {
		if err := hw.set(position{1, uint64(i)}, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyOnDisk is one serial write through a one-node group on
// disk (one fsync'd bbolt commit, the mark raised after it).
func BenchmarkApplyOnDisk(b *testing.B) {
	trans, err := NewTCPTransport("127.0.0.1:0", "", hclog.NewNullLogger())
	if err != nil {
		b.Fatal(err)
	}
	n, err := Open(Config{SelfID: "n0", Peers: []Peer{{"n0", string(trans.LocalAddr())}}, Dir: b.TempDir(),
		Transport: trans, Logger: hclog.NewNullLogger()}, &counterFSM{})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	WaitForLeader(b, n)
	b.ResetTimer()
	for range b.N {
		if _, err := n.Apply(context.Background(), []byte("1")); err != nil {
			b.Fatal(err)
		}
	}
}
