package tlsconf

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: a
// Manager's file watcher after Close, a connection stuck in its sniff or
// handshake, a load blocked on a FIFO.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
