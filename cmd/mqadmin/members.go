package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
)

// Controller membership commands (this project's own request codes,
// docs/controller-ops.md, "Changing Controller membership"): each finds the leader among
// -a and asks it; a change is one Raft configuration entry.

// promotePoll is how often addControllerMember -w asks whether the new
// member was promoted.
const promotePoll = 500 * time.Millisecond

func setupListControllerMembers(fs *flag.FlagSet) runFunc {
	var list string
	strFlag(fs, &list, "a", "controllerAddress", "the addresses of the controllers, eg: 192.168.0.1:9878;192.168.0.2:9878")
	return func(e *env) error {
		leader, err := e.memberLeader(list)
		if err != nil {
			return err
		}
		m, err := e.client.ControllerMembers(e.ctx, leader)
		if err != nil {
			return err
		}
		if e.json {
			return e.printJSON(m)
		}
		printMembers(e, m)
		return nil
	}
}

func printMembers(e *env, m *wire.MembersBody) {
	e.printf("%-12s %-24s %-10s %-7s %-9s %s\n", "#Id", "#RaftAddr", "#Suffrage", "#Leader", "#Answers", "#Behind")
	for _, s := range m.Members {
		suffrage, behind := "voter", "-"
		if !s.Voter {
			suffrage = "nonvoter"
		}
		if s.Reachable && s.LastIndex <= m.LeaderLastIndex {
			behind = fmt.Sprint(m.LeaderLastIndex - s.LastIndex)
		}
		e.printf("%-12s %-24s %-10s %-7t %-9t %s\n", s.ID, s.RaftAddr, suffrage, s.Leader, s.Reachable, behind)
	}
	if m.Drift != "" {
		e.printf("#Drift\tthe leader's controllerRaftPeers differ: %s\n", m.Drift)
	}
}

func setupAddControllerMember(fs *flag.FlagSet) runFunc {
	var list, id, addr string
	var wait time.Duration
	strFlag(fs, &list, "a", "controllerAddress", "the addresses of the controllers")
	strFlag(fs, &id, "i", "id", "the new member's controllerDLegerSelfId")
	strFlag(fs, &addr, "r", "raftAddr", "the new member's Raft address (its controllerRaftPeers entry)")
	fs.DurationVar(&wait, "w", 60*time.Second, "wait this long for the promotion to voter (0: do not wait)")
	return func(e *env) error {
		if err := required(opt("i", &id), opt("r", &addr)); err != nil {
			return err
		}
		if err := e.changeMember(list, wire.CodeAddControllerMember, wire.MemberRequest{ID: id, RaftAddr: addr}); err != nil {
			return err
		}
		e.printf("%s added at %s as a non-voter; the leader promotes it once it caught up\n", id, addr)
		if wait <= 0 {
			return nil
		}
		return e.waitVoter(list, id, wait)
	}
}

func setupRemoveControllerMember(fs *flag.FlagSet) runFunc {
	var list, id string
	strFlag(fs, &list, "a", "controllerAddress", "the addresses of the controllers")
	strFlag(fs, &id, "i", "id", "the member to remove (not the leader)")
	return func(e *env) error {
		if err := required(opt("i", &id)); err != nil {
			return err
		}
		if err := e.changeMember(list, wire.CodeRemoveControllerMember, wire.MemberRequest{ID: id}); err != nil {
			return err
		}
		e.printf("%s removed\n", id)
		return nil
	}
}

func setupMoveControllerMember(fs *flag.FlagSet) runFunc {
	var list, id, addr string
	strFlag(fs, &list, "a", "controllerAddress", "the addresses of the controllers")
	strFlag(fs, &id, "i", "id", "the stopped member that moves with its data directory")
	strFlag(fs, &addr, "r", "raftAddr", "its new Raft address")
	return func(e *env) error {
		if err := required(opt("i", &id), opt("r", &addr)); err != nil {
			return err
		}
		if err := e.changeMember(list, wire.CodeMoveControllerMember, wire.MemberRequest{ID: id, RaftAddr: addr}); err != nil {
			return err
		}
		e.printf("%s now at %s: start it there with its data directory\n", id, addr)
		return nil
	}
}

// memberLeader is the remoting address of the leader among -a.
func (e *env) memberLeader(list string) (string, error) {
	addrs, err := controllers(list)
	if err != nil {
		return "", err
	}
	md, err := e.client.FindLeader(e.ctx, addrs)
	if err != nil {
		return "", err
	}
	return md.LeaderAddr, nil
}

// changeMember checks req, then sends it to the leader.
func (e *env) changeMember(list string, code int32, req wire.MemberRequest) error {
	if _, err := wire.DecodeMemberRequest(req.ExtFields(), code != wire.CodeRemoveControllerMember); err != nil {
		return usageErrorf("%v", err)
	}
	leader, err := e.memberLeader(list)
	if err != nil {
		return err
	}
	_, err = e.client.ChangeControllerMember(e.ctx, leader, code, req)
	return err
}

// waitVoter polls the leader until id is a voter, for at most wait.
func (e *env) waitVoter(list, id string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		leader, err := e.memberLeader(list)
		if err == nil {
			var m *wire.MembersBody
			if m, err = e.client.ControllerMembers(e.ctx, leader); err == nil && isVoter(m, id) {
				e.printf("%s promoted to voter\n", id)
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not promoted within %s (is it running, with the group's peers? listControllerMembers shows how far behind it is)", id, wait)
		}
		select {
		case <-e.ctx.Done():
			return e.ctx.Err()
		case <-time.After(promotePoll):
		}
	}
}

func isVoter(m *wire.MembersBody, id string) bool {
	for _, s := range m.Members {
		if s.ID == id {
			return s.Voter
		}
	}
	return false
}
