package poll

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Wait returns nil on the first nil from check and keeps polling while
// check fails.
func TestWaitReturnsOnceCheckHolds(t *testing.T) {
	var calls atomic.Int32
	err := Wait(5*time.Second, time.Millisecond, func() error {
		if calls.Add(1) < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, int32(3), calls.Load())
}

// Past the deadline Wait returns check's last error, not a generic one.
func TestWaitReturnsTheLastError(t *testing.T) {
	var calls atomic.Int32
	err := Wait(20*time.Millisecond, time.Millisecond, func() error {
		return fmt.Errorf("attempt %d", calls.Add(1))
	})
	require.EqualError(t, err, fmt.Sprintf("attempt %d", calls.Load()))
}

// True says ErrFalse only while the condition is false.
func TestTrueReportsTheCondition(t *testing.T) {
	ok := false
	check := True(func() bool { return ok })
	require.ErrorIs(t, check(), ErrFalse)
	ok = true
	require.NoError(t, check())
}

// Until passes at once when the check holds, without sleeping.
func TestUntilPassesWhenCheckHolds(t *testing.T) {
	Until(t, "nothing", time.Second, time.Hour, func() error { return nil })
}
