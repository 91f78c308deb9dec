//go:build embedded_controller

package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNodeProfileSplitsCPUByLabel: CPU spent under a node's label is
// counted for that node, the rest as unlabelled.
func TestNodeProfileSplitsCPUByLabel(t *testing.T) {
	prof := startNodeProfile()
	if prof == nil {
		t.Skip("a CPU profile is already running")
	}
	spin := func(d time.Duration) {
		for end := processCPU() + d; processCPU() < end; {
			for i := 0; i < 1e5; i++ {
				_ = i * i
			}
		}
	}
	withNodeLabel("n7", func() {
		done := make(chan struct{})
		go func() { defer close(done); spin(300 * time.Millisecond) }() // inherits the label
		<-done
	})
	spin(100 * time.Millisecond)
	by, raw, err := prof.stop()
	require.NoError(t, err)
	require.NotEmpty(t, raw)
	t.Logf("cpu by label: %v", by)
	require.Greater(t, by["n7"], 100*time.Millisecond)
	for label := range by {
		require.Contains(t, []string{"", "n7"}, label)
	}
}
