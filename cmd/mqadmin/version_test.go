package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/version"
)

// TestVersionFlag: -version (and version) print the binary's version and
// the Controller format it reads.
func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"-version", "--version", "version"} {
		require.Equal(t, version.String("mqadmin")+"\n", requireOK(t, mqadmin(t, arg)))
	}
}

// TestGetControllerVersionsOfOldNode: a node that sends no version fields
// (v1.0.0, Java) is shown as format 1, and getControllerMetaData's output
// for it stays Java's; an unreachable node is an error row and exit 1.
func TestGetControllerVersionsOfOldNode(t *testing.T) {
	t.Parallel()
	fc := newFakeController(t)
	out := requireOK(t, mqadmin(t, "getControllerVersions", "-a", fc.addr))
	require.Contains(t, out, "1.0.0 or Java")
	var rows []versionRow
	require.NoError(t, json.Unmarshal([]byte(requireOK(t, mqadmin(t, "getControllerVersions", "-a", fc.addr, "--json"))), &rows))
	require.Equal(t, []versionRow{{Addr: fc.addr, BinaryVersion: "1.0.0 or Java", FormatVersion: "1", ClusterVersion: "?", IsLeader: true}}, rows)
	out = requireOK(t, mqadmin(t, "getControllerMetaData", "-a", fc.addr))
	require.NotContains(t, out, "Version")
	r := mqadmin(t, "getControllerVersions", "-a", nsList(fc.addr, closedAddr(t)))
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.out, "error:")
}
