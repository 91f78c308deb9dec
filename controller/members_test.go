//go:build embedded_controller

package controller

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// TestMemberRequestsServedByLeaderOnly: a follower answers every
// membership request 2007 naming the leader's id and address; the leader
// lists the configuration, refuses bad fields with 2005 naming the rule,
// refuses removing itself or an unknown id, and while a non-voter it
// added is pending refuses any other change until that one is removed.
func TestMemberRequestsServedByLeaderOnly(t *testing.T) {
	ic := newCluster(t, 3, tuneRaft(steadyRaft)) // one leader throughout
	leader := ic.leader(t)
	f := ic.follower(t)
	for _, code := range []int32{wire.CodeListControllerMembers, wire.CodeAddControllerMember,
		wire.CodeRemoveControllerMember, wire.CodeMoveControllerMember} {
		ext := map[string]string{"id": "n9"}
		if code != wire.CodeRemoveControllerMember {
			ext["raftAddr"] = "127.0.0.9:1"
		}
		resp := invoke(t, f.Addr(), code, ext, nil)
		require.Equal(t, remoting.ControllerNotLeader, resp.Code, "code %d: %s", code, resp.Remark)
		require.Contains(t, resp.Remark, "the leader is "+leader.node.ID()+" at "+leader.Addr())
		require.Equal(t, leader.Addr(), resp.ExtFields["controllerLeaderAddress"])
	}

	members := listMembers(t, leader.Addr())
	require.Len(t, members.Members, 3)
	for _, m := range members.Members {
		require.True(t, m.Voter && m.Reachable, "%+v", m)
	}

	for _, bad := range []map[string]string{
		{}, {"id": "a-b", "raftAddr": "127.0.0.1:1"}, {"id": strings.Repeat("x", 65), "raftAddr": "127.0.0.1:1"},
		{"id": "n9"}, {"id": "n9", "raftAddr": "nohost"}, {"id": "n9", "raftAddr": "127.0.0.1:0"},
		{"id": "n9", "raftAddr": "127.0.0.1:65536"}, {"id": "n9", "raftAddr": ":80"},
		{"id": "n9", "raftAddr": strings.Repeat("h", 300) + ":1"}, {"id": "n\x00", "raftAddr": "127.0.0.1:1"},
	} {
		resp := invoke(t, leader.Addr(), wire.CodeAddControllerMember, bad, nil)
		require.Equal(t, remoting.ControllerInvalidRequest, resp.Code, "%q: %s", bad, resp.Remark)
	}
	resp := invoke(t, leader.Addr(), wire.CodeRemoveControllerMember, map[string]string{"id": "n1", "raftAddr": "x:1"}, nil)
	require.Equal(t, remoting.ControllerInvalidRequest, resp.Code, resp.Remark)
	resp = invoke(t, leader.Addr(), wire.CodeRemoveControllerMember, map[string]string{"id": leader.node.ID()}, nil)
	require.Equal(t, remoting.ControllerInvalidRequest, resp.Code)
	require.Contains(t, resp.Remark, "is the leader")
	resp = invoke(t, leader.Addr(), wire.CodeRemoveControllerMember, map[string]string{"id": "n9"}, nil)
	require.Contains(t, resp.Remark, "n9 is not a member")

	resp = invoke(t, leader.Addr(), wire.CodeAddControllerMember, map[string]string{"id": "n9", "raftAddr": "127.0.0.9:1"}, nil)
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	require.NotEmpty(t, resp.ExtFields["index"])
	resp = invoke(t, leader.Addr(), wire.CodeAddControllerMember, map[string]string{"id": "n8", "raftAddr": "127.0.0.8:1"}, nil)
	require.Equal(t, remoting.ControllerInvalidRequest, resp.Code)
	require.Contains(t, resp.Remark, "non-voter n9 is not promoted yet")
	resp = invoke(t, leader.Addr(), wire.CodeRemoveControllerMember, map[string]string{"id": f.node.ID()}, nil)
	require.Contains(t, resp.Remark, "non-voter n9 is not promoted yet")
	members = listMembers(t, leader.Addr())
	require.Len(t, members.Members, 4)
	resp = invoke(t, leader.Addr(), wire.CodeRemoveControllerMember, map[string]string{"id": "n9"}, nil)
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	require.Len(t, listMembers(t, leader.Addr()).Members, 3)
}

func listMembers(t *testing.T, addr string) wire.MembersBody {
	t.Helper()
	resp := invoke(t, addr, wire.CodeListControllerMembers, nil, nil)
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	m, err := wire.DecodeMembersBody(resp.Body)
	require.NoError(t, err)
	return m
}

// TestMemberChangesNeedAdminWithACL: with ACL on, a stranger's and a read
// account's membership requests are denied (16) before any handler runs;
// the admin account's are served.
func TestMemberChangesNeedAdminWithACL(t *testing.T) {
	yml := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeAccounts(t, yml, pollerAccount, adminAccount)
	ic := newCluster(t, 3, tuneRaft(steadyRaft), withProps("aclEnable=true", "aclAnonymousRead=true", "aclConfigPath="+yml))
	leader := ic.leader(t)
	add := map[string]string{"id": "n9", "raftAddr": "127.0.0.9:1"}
	for _, code := range []int32{wire.CodeListControllerMembers, wire.CodeAddControllerMember, wire.CodeRemoveControllerMember} {
		resp := invoke(t, leader.Addr(), code, add, nil)
		require.Equal(t, codeNoPermission, resp.Code, "unsigned %d: %s", code, resp.Remark)
		resp = invokeCodeSigned(t, leader.Addr(), code, add, "ctlPoller", "poller-secret")
		require.Equal(t, codeNoPermission, resp.Code, "read account %d: %s", code, resp.Remark)
	}
	resp := invokeCodeSigned(t, leader.Addr(), wire.CodeListControllerMembers, nil, "rocketmqAdmin", "admin-secret")
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	m, err := wire.DecodeMembersBody(resp.Body)
	require.NoError(t, err)
	require.Len(t, m.Members, 3, "nothing changed")
	resp = invokeCodeSigned(t, leader.Addr(), wire.CodeRemoveControllerMember, map[string]string{"id": "n9"}, "rocketmqAdmin", "admin-secret")
	require.Equal(t, remoting.ControllerInvalidRequest, resp.Code, "served: %s", resp.Remark)
}

// invokeCodeSigned sends one request signed with accessKey and secret.
func invokeCodeSigned(t *testing.T, addr string, code int32, ext map[string]string, accessKey, secret string) *remoting.Command {
	t.Helper()
	req := remoting.NewRequest(code, ext, nil)
	acl.Sign(req, accessKey, secret, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.Invoke(ctx, req)
	require.NoError(t, err)
	return resp
}
