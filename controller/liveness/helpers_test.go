//go:build embedded_controller

package liveness

import (
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/internal/testlog"
)

func testLogger(t testing.TB) hclog.Logger { return testlog.New(t, t.Name()) }

// fakeClock is a settable Clock (monotime.Fake).
type fakeClock struct{ *monotime.Fake }

func newFakeClock() *fakeClock {
	return &fakeClock{monotime.NewFake(time.UnixMilli(1_700_000_000_000))}
}

func ptr[T any](v T) *T { return &v }
