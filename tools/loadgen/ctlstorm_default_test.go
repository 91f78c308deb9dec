//go:build !embedded_controller

package main

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// TestCtlStormNeedsTheControllerBuild: the default build names the tag.
func TestCtlStormNeedsTheControllerBuild(t *testing.T) {
	_, err := runCtlStorm(ctlOptions{}, 1, hclog.NewNullLogger(), hclog.NewNullLogger())
	require.ErrorContains(t, err, "embedded_controller")
	require.ErrorContains(t, serveFleet(ctlOptions{}, nil, hclog.NewNullLogger()), "embedded_controller")
}
