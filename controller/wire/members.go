package wire

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
)

// Request codes of the Controller membership admin requests: this
// project's own (Java has none). They sit in 42001-42099, a range Java's
// RequestCode does not use (its codes run to 3010, then 200050-200151)
// and no code of this project uses otherwise (docs/controller.md 1.4).
// They need the admin role when ACL is on (an unknown code of the ACL
// table), and only the ready leader serves them: a follower answers 2007
// naming the leader.
const (
	CodeListControllerMembers  int32 = 42001
	CodeAddControllerMember    int32 = 42002
	CodeRemoveControllerMember int32 = 42003
	CodeMoveControllerMember   int32 = 42004
)

// Bounds of the fields of a membership request.
const (
	MaxMemberIDBytes   = 64
	MaxMemberAddrBytes = 261 // a 253-byte host name, ':' and a port
)

// MemberRequest is the header of 42002 (id, raftAddr), 42003 (id) and
// 42004 (id, raftAddr).
type MemberRequest struct {
	ID       string
	RaftAddr string
}

// ExtFields is the header as sent.
func (r MemberRequest) ExtFields() map[string]string {
	m := map[string]string{"id": r.ID}
	if r.RaftAddr != "" {
		m["raftAddr"] = r.RaftAddr
	}
	return m
}

// DecodeMemberRequest reads and validates a membership request header;
// withAddr requires raftAddr, and without it raftAddr must be absent.
// Errors name the field and the rule; the Controller answers them 2005.
func DecodeMemberRequest(ext map[string]string, withAddr bool) (MemberRequest, error) {
	r := MemberRequest{ID: ext["id"], RaftAddr: ext["raftAddr"]}
	if err := ValidateMemberID(r.ID); err != nil {
		return r, err
	}
	if !withAddr {
		if r.RaftAddr != "" {
			return r, fmt.Errorf("raftAddr is not a field of this request")
		}
		return r, nil
	}
	return r, ValidateMemberAddr(r.RaftAddr)
}

// ValidateMemberID checks a Controller id as controllerRaftPeers writes
// it: 1 to 64 bytes of printable ASCII without space, '-', ';', ',', '='.
func ValidateMemberID(id string) error {
	if id == "" || len(id) > MaxMemberIDBytes {
		return fmt.Errorf("id must be 1 to %d bytes (got %d)", MaxMemberIDBytes, len(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c > '~' || c == '-' || c == ';' || c == ',' || c == '=' {
			return fmt.Errorf("id %q: byte %d (0x%02x) is not allowed (printable ASCII without space - ; , =)", id, i, c)
		}
	}
	return nil
}

// ValidateMemberAddr checks a Raft address: host:port, a host of at most
// 253 bytes without spaces, a port in 1..65535.
func ValidateMemberAddr(addr string) error {
	if addr == "" || len(addr) > MaxMemberAddrBytes {
		return fmt.Errorf("raftAddr must be 1 to %d bytes (got %d)", MaxMemberAddrBytes, len(addr))
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || len(host) > 253 {
		return fmt.Errorf("raftAddr %q is not host:port", addr)
	}
	for i := 0; i < len(host); i++ {
		if host[i] <= ' ' || host[i] > '~' {
			return fmt.Errorf("raftAddr %q: the host holds byte 0x%02x", addr, host[i])
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("raftAddr %q: port outside 1..65535", addr)
	}
	return nil
}

// MemberInfo is one server of the Raft configuration as the leader sees it.
type MemberInfo struct {
	ID        string `json:"id"`
	RaftAddr  string `json:"raftAddr"`
	Voter     bool   `json:"voter"`
	Leader    bool   `json:"leader"`
	Reachable bool   `json:"reachable"`
	LastIndex uint64 `json:"lastIndex"`
}

// MembersBody is the JSON body of the 42001 reply.
type MembersBody struct {
	LeaderID        string       `json:"leaderId"`
	LeaderLastIndex uint64       `json:"leaderLastIndex"`
	Members         []MemberInfo `json:"members"`
	// Drift is how the leader's configured controllerRaftPeers differ
	// from the configuration ("" when they agree).
	Drift string `json:"drift,omitempty"`
}

// maxMembersBody bounds a 42001 reply body the admin client decodes.
const maxMembersBody = 1 << 20

// DecodeMembersBody reads a 42001 reply body.
func DecodeMembersBody(b []byte) (MembersBody, error) {
	var m MembersBody
	if len(b) > maxMembersBody {
		return m, fmt.Errorf("members body of %d bytes exceeds %d", len(b), maxMembersBody)
	}
	err := json.Unmarshal(b, &m)
	return m, err
}
