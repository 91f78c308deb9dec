//go:build embedded_controller

package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
)

// The membership admin requests (docs/controller.md 1.4): this project's
// own codes, served by the ready leader only, each change one Raft
// configuration entry (raftstore members.go).

// memberChangeTimeout bounds one change: the liveness probes (2 s) and
// the commit of its entry; under the admin client's 5 s request bound.
const memberChangeTimeout = 4 * time.Second

func (c *Controller) registerMembers() {
	c.srv.RegisterAsync(wire.CodeListControllerMembers, c.handleListMembers)
	c.srv.RegisterAsync(wire.CodeAddControllerMember, c.memberChange(true, func(ctx context.Context, r wire.MemberRequest) (uint64, error) {
		return c.node.AddMember(ctx, r.ID, r.RaftAddr)
	}))
	c.srv.RegisterAsync(wire.CodeRemoveControllerMember, c.memberChange(false, func(ctx context.Context, r wire.MemberRequest) (uint64, error) {
		return c.node.RemoveMember(ctx, r.ID)
	}))
	c.srv.RegisterAsync(wire.CodeMoveControllerMember, c.memberChange(true, func(ctx context.Context, r wire.MemberRequest) (uint64, error) {
		return c.node.MoveMember(ctx, r.ID, r.RaftAddr)
	}))
}

// handleListMembers serves 42001: the configuration with each server's
// liveness and last log index, and the leader's drift.
func (c *Controller) handleListMembers(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if !c.IsReadyLeader() {
		return c.notLeaderReply(req), nil
	}
	ctx, cancel := context.WithTimeout(c.ctx, memberChangeTimeout)
	defer cancel()
	m, err := c.node.Membership(ctx)
	if err != nil {
		return c.respond(req, outcome{err: memberError(err)}), nil
	}
	body := wire.MembersBody{LeaderID: c.node.ID(), LeaderLastIndex: m.LeaderLastIndex, Drift: c.drift.text()}
	for _, s := range m.Members {
		body.Members = append(body.Members, wire.MemberInfo{ID: s.ID, RaftAddr: s.RaftAddr, Voter: s.Voter,
			Leader: s.Leader, Reachable: s.Reachable, LastIndex: s.LastIndex})
	}
	resp := c.newResponse(req, codeSuccess, "")
	resp.Body, err = json.Marshal(body)
	if err != nil {
		return c.respond(req, outcome{err: &domainError{Kind: errSystem, Remark: err.Error()}}), nil
	}
	return resp, nil
}

// memberChange serves one change code: validate the header, then run do
// on the ready leader; the reply carries the index of the entry.
func (c *Controller) memberChange(withAddr bool, do func(context.Context, wire.MemberRequest) (uint64, error)) remoting.HandlerFunc {
	return func(conn *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		r, err := wire.DecodeMemberRequest(req.ExtFields, withAddr)
		if err != nil {
			return c.respond(req, outcome{err: &domainError{Kind: errInvalidField, Remark: err.Error()}}), nil
		}
		if !c.IsReadyLeader() {
			return c.notLeaderReply(req), nil
		}
		ctx, cancel := context.WithTimeout(c.ctx, memberChangeTimeout)
		defer cancel()
		c.logger.Info("controller membership change requested", "code", req.Code, "member", r.ID,
			"raft_addr", r.RaftAddr, "from", conn.RemoteAddr())
		index, err := do(ctx, r)
		if err != nil {
			c.logger.Warn("controller membership change refused", "code", req.Code, "member", r.ID, "error", err)
			return c.respond(req, outcome{err: memberError(err)}), nil
		}
		c.checkDrift()
		resp := c.newResponse(req, codeSuccess, "")
		resp.ExtFields = map[string]string{"index": strconv.FormatUint(index, 10)}
		return resp, nil
	}
}

// notLeaderReply is 2007 with the leader's id and address when known.
func (c *Controller) notLeaderReply(req *remoting.Command) *remoting.Command {
	id := c.node.LeaderID()
	if id == "" {
		return c.respond(req, outcome{err: errNotLeader})
	}
	addr := c.remotingAddrOf(id)
	resp := c.newResponse(req, remoting.ControllerNotLeader, fmt.Sprintf("%s; the leader is %s at %s", remarkNotLeader, id, orUnknown(addr)))
	resp.ExtFields = map[string]string{"controllerLeaderId": id}
	if addr != "" {
		resp.ExtFields["controllerLeaderAddress"] = addr
	}
	return resp
}

func orUnknown(s string) string {
	if s == "" {
		return "an address missing from controllerDLegerPeers"
	}
	return s
}

// memberError maps raftstore's refusals: not leader → 2007, a refused
// change → 2005 with its reason, the rest → 1.
func memberError(err error) error {
	switch {
	case errors.Is(err, raftstore.ErrNotLeader):
		return errNotLeader
	case errors.Is(err, raftstore.ErrMemberChange), errors.Is(err, raftstore.ErrChangeInProgress),
		errors.Is(err, raftstore.ErrNoMajority):
		return &domainError{Kind: errInvalidRequest, Remark: err.Error()}
	}
	return &domainError{Kind: errSystem, Remark: err.Error()}
}
