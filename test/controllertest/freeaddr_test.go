//go:build embedded_controller

package controllertest

import (
	"testing"
)

// TestFreeAddrNeverRepeats: freeAddr closes its listener, so the kernel
// could hand the same port out again to a later call of the same test:
// TestProcessClusterEmbeddedInNamesrv failed once when n1's Raft address
// was n2's listenPort ('bind: address already in use'; n1 never started
// and the two others could not elect once the leader was killed). 500
// addresses from one test binary are all different (the unfixed one
// repeated one within 100).
func TestFreeAddrNeverRepeats(t *testing.T) {
	seen := map[string]int{}
	for i := range 500 {
		addr := freeAddr(t)
		if j, dup := seen[addr]; dup {
			t.Fatalf("freeAddr returned %s at calls %d and %d", addr, j, i)
		}
		seen[addr] = i
	}
}
