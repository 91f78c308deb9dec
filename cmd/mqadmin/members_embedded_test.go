//go:build embedded_controller

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// TestMembersCommandsOnOneNode: listControllerMembers prints the one
// voter; addControllerMember -w 0 adds a non-voter nobody runs (listed,
// not answering), a second add is refused naming the pending one, and
// removeControllerMember gives it up; bad ids and addresses are usage
// errors before anything is sent.
func TestMembersCommandsOnOneNode(t *testing.T) {
	addr := startController(t)
	out := requireOK(t, mqadmin(t, "listControllerMembers", "-a", addr))
	require.Contains(t, out, "#Id")
	require.Contains(t, out, "n0")

	requireOK(t, mqadmin(t, "addControllerMember", "-a", addr, "-i", "n9", "-r", "127.0.0.1:1", "-w", "0"))
	var m wire.MembersBody
	require.NoError(t, json.Unmarshal([]byte(requireOK(t, mqadmin(t, "listControllerMembers", "-a", addr, "--json"))), &m))
	require.Len(t, m.Members, 2)
	r := mqadmin(t, "addControllerMember", "-a", addr, "-i", "n8", "-r", "127.0.0.1:2", "-w", "0")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "non-voter n9 is not promoted yet")
	requireOK(t, mqadmin(t, "removeControllerMember", "-a", addr, "-i", "n9"))

	for _, args := range [][]string{
		{"addControllerMember", "-a", addr, "-r", "127.0.0.1:1"},
		{"addControllerMember", "-a", addr, "-i", "a-b", "-r", "127.0.0.1:1"},
		{"addControllerMember", "-a", addr, "-i", "n9", "-r", "127.0.0.1"},
		{"moveControllerMember", "-a", addr, "-i", "n9", "-r", "127.0.0.1:70000"},
		{"removeControllerMember", "-a", addr},
	} {
		r := mqadmin(t, args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", args, r.errOut)
	}
}
