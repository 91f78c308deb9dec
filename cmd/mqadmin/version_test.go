package main

import (
	"bytes"
	"encoding/json"
	"strings"
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

// The columns of getControllerVersions are as wide as their widest cell:
// with pod host names longer than 24 characters every column still starts
// at one offset on every line.
func TestControllerVersionsColumnsAligned(t *testing.T) {
	var out bytes.Buffer
	printVersionRows(&env{out: &out}, []versionRow{
		{Addr: "rocketmq-namesrv-0.rocketmq-namesrv-peers:9878", BinaryVersion: "1.1.0-dev", FormatVersion: "2", ClusterVersion: "2", IsLeader: true},
		{Addr: "10.0.0.1:9878", BinaryVersion: "1.0.0 or Java", FormatVersion: "1", ClusterVersion: "?"},
	})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	for _, col := range []string{"#Binary", "#Format", "#Cluster", "#Leader"} {
		at := strings.Index(lines[0], col)
		for _, l := range lines[1:] {
			require.NotEqual(t, byte(' '), l[at], "column %s at %d in %q", col, at, l)
			require.Equal(t, byte(' '), l[at-1], "column %s at %d in %q", col, at, l)
		}
	}
}
