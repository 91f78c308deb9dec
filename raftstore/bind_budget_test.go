//go:build embedded_controller

package raftstore

import (
	"crypto/tls"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/connlimit"
)

// TestFailedBindLeavesTheBudget: a stream layer that fails after
// it bound (an address that cannot be advertised) leaves the side budget
// it joined; the controller retries its bind, and the budget is the
// process's.
func TestFailedBindLeavesTheBudget(t *testing.T) {
	b := connlimit.NewBudget(10)
	in := Inbound{Budget: b}
	for range 50 {
		_, err := newTCPStreamLayer("0.0.0.0:0", nil, in, testLogger(t, "l"))
		require.Error(t, err)
		_, err = NewTLSStreamLayer("127.0.0.1:0", "0.0.0.0:1", &tls.Config{}, &tls.Config{}, in, testLogger(t, "l"))
		require.Error(t, err)
	}
	require.Zero(t, b.Listeners(), "listeners left in the budget")
}
