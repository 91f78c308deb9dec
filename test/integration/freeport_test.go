package integration

import (
	"testing"
)

// TestFreePortNeverRepeats: freePort closes its listener, so the kernel
// could hand the same port out again to a later call of the same test
// (a process's listenPort and its metrics port, or two processes); the
// second bind then fails. 500 ports from one test binary are all
// different.
func TestFreePortNeverRepeats(t *testing.T) {
	seen := map[int]int{}
	for i := range 500 {
		port := freePort(t)
		if j, dup := seen[port]; dup {
			t.Fatalf("freePort returned %d at calls %d and %d", port, j, i)
		}
		seen[port] = i
	}
}
