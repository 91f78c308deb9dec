// Package poll waits in tests for a condition that other goroutines make
// true, the project's one polling helper: a test never sleeps for a fixed
// time and then asserts, it polls with a deadline and, on timeout, fails
// with what it waited for and the condition's last error (like
// nats-server's checkFor; require.Eventually only says that time ran out).
//
// It imports testing: only _test.go files and test-support packages may
// import it, never a package linked into a binary under cmd/.
package poll

import (
	"errors"
	"testing"
	"time"
)

// ErrFalse is the error of a True check whose condition does not hold.
var ErrFalse = errors.New("condition still false")

// Until calls check on the calling goroutine every interval until it
// returns nil; once wait has passed it fails t, naming what it waited for
// and check's last error. Polling on the caller's goroutine keeps the
// test's goroutine counts what the code under test made them.
func Until(t testing.TB, what string, wait, interval time.Duration, check func() error) {
	t.Helper()
	if err := Wait(wait, interval, check); err != nil {
		t.Fatalf("timed out after %v waiting for %s: %v", wait, what, err)
	}
}

// Wait is Until without a test: it returns nil as soon as check does, or
// check's last error once wait has passed.
func Wait(wait, interval time.Duration, check func() error) error {
	deadline := time.Now().Add(wait)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(interval) // poll interval, not an assertion delay
	}
}

// True turns a boolean condition into a check for Until or Wait: it
// returns ErrFalse while cond is false.
func True(cond func() bool) func() error {
	return func() error {
		if cond() {
			return nil
		}
		return ErrFalse
	}
}
