package namesrv

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine of a server (its
// listener, connections, liveness scan or unregistration worker) outlives
// them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
