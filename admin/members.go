package admin

import (
	"context"
	"fmt"
	"strconv"

	"github.com/rmqgo/nameserver/controller/wire"
)

// ControllerMembers asks the leader for the Raft configuration (42001,
// this project's own code): each server, whether it answered the leader's
// probe and its last log index.
func (c *Client) ControllerMembers(ctx context.Context, leader string) (*wire.MembersBody, error) {
	resp, err := c.call(ctx, leader, wire.CodeListControllerMembers, nil, nil)
	if err != nil {
		return nil, err
	}
	body, err := wire.DecodeMembersBody(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot decode the members: %w", leader, err)
	}
	return &body, nil
}

// ChangeControllerMember sends one membership change (42002 add, 42003
// remove, 42004 move) to the leader and returns the log index of its
// configuration entry. The request is checked first (wire rules).
func (c *Client) ChangeControllerMember(ctx context.Context, leader string, code int32, req wire.MemberRequest) (uint64, error) {
	if _, err := wire.DecodeMemberRequest(req.ExtFields(), code != wire.CodeRemoveControllerMember); err != nil {
		return 0, err
	}
	resp, err := c.call(ctx, leader, code, req.ExtFields(), nil)
	if err != nil {
		return 0, err
	}
	index, _ := strconv.ParseUint(resp.ExtFields["index"], 10, 64)
	return index, nil
}
