//go:build embedded_controller

package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/version"
)

// TestControllerVersionsOfRealNode: getControllerMetaData and
// getControllerVersions show the node's binary version, its format and
// the cluster version (1 on a new group until its leader raises it).
func TestControllerVersionsOfRealNode(t *testing.T) {
	ctl := startController(t)
	out := requireOK(t, mqadmin(t, "getControllerMetaData", "-a", ctl))
	require.Contains(t, out, "#BinaryVersion\t"+version.Version+"\n#FormatVersion\t2\n#ClusterVersion\t")
	out = requireOK(t, mqadmin(t, "getControllerVersions", "-a", ctl))
	require.Contains(t, out, version.Version)
	t.Log(out)
}
