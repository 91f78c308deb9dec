package remoting

import (
	"fmt"
	"strconv"
	"strings"
)

// Flag bits of Command.Flag (RemotingCommand.java).
const (
	FlagResponse int32 = 1 << 0 // set on every response
	FlagOneway   int32 = 1 << 1 // request expects no response
)

// Command is one remoting frame: the header fields and the body.
//
// A decoded Command owns its strings, map and body (none alias the frame it
// came from). A Command handed to the server, a Conn or a Client for sending
// must not be modified until it has been written; commands may be shared
// read-only (a canned response sent to many peers).
type Command struct {
	Code          int32             // request code, or response code in a response
	Language      string            // enum name, e.g. "JAVA", "GO"; "" = null
	Version       int32             // sender's MQVersion ordinal
	Opaque        int32             // request id; a response copies it
	Flag          int32             // FlagResponse, FlagOneway
	Remark        string            // "" = null (omitted in JSON)
	ExtFields     map[string]string // nil = omitted; non-nil empty = {}
	Body          []byte            // nil/empty = no body
	SerializeType SerializeType     // header type as received / to send
}

// NewRequest returns a JSON request as a Java 5.3 peer would send it:
// language JAVA, version CurrentVersion. The opaque is assigned when sent.
func NewRequest(code int32, ext map[string]string, body []byte) *Command {
	return &Command{
		Code:      code,
		Language:  LanguageJava,
		Version:   CurrentVersion,
		ExtFields: ext,
		Body:      body,
	}
}

// NewResponse returns a JSON response to req: flag FlagResponse only (the
// oneway bit is not copied), req's opaque, language JAVA, version
// CurrentVersion. An empty remark is null.
func NewResponse(req *Command, code int32, remark string) *Command {
	var opaque int32
	if req != nil {
		opaque = req.Opaque
	}
	return &Command{
		Code:     code,
		Language: LanguageJava,
		Version:  CurrentVersion,
		Opaque:   opaque,
		Flag:     FlagResponse,
		Remark:   remark,
	}
}

// IsResponse reports whether the response bit is set.
func (c *Command) IsResponse() bool { return c.Flag&FlagResponse != 0 }

// IsOneway reports whether the oneway bit is set.
func (c *Command) IsOneway() bool { return c.Flag&FlagOneway != 0 }

// MarkOneway sets the oneway bit.
func (c *Command) MarkOneway() { c.Flag |= FlagOneway }

// String describes c for logs (header fields and body length).
func (c *Command) String() string {
	return fmt.Sprintf("code=%d opaque=%d flag=%d lang=%s version=%d remark=%q ext=%v body=%dB",
		c.Code, c.Opaque, c.Flag, c.Language, c.Version, c.Remark, c.ExtFields, len(c.Body))
}

// SetExt sets an extFields entry, creating the map if needed.
func (c *Command) SetExt(key, value string) {
	if c.ExtFields == nil {
		c.ExtFields = make(map[string]string, 4)
	}
	c.ExtFields[key] = value
}

// ExtString returns an extFields value and whether it is present.
func (c *Command) ExtString(key string) (string, bool) {
	v, ok := c.ExtFields[key]
	return v, ok
}

// ExtInt64 parses an extFields value like Java's Long.parseLong. ok reports
// presence; err (wrapping ErrBadExtField) a present but unparsable value.
// Java logs such failures and keeps the field's default.
func (c *Command) ExtInt64(key string) (v int64, ok bool, err error) {
	s, ok := c.ExtFields[key]
	if !ok {
		return 0, false, nil
	}
	v, err = strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, true, fmt.Errorf("%w: %s=%q is not a long", ErrBadExtField, key, s)
	}
	return v, true, nil
}

// ExtInt32 parses an extFields value like Java's Integer.parseInt, with the
// same results as ExtInt64.
func (c *Command) ExtInt32(key string) (v int32, ok bool, err error) {
	s, ok := c.ExtFields[key]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, true, fmt.Errorf("%w: %s=%q is not an int", ErrBadExtField, key, s)
	}
	return int32(n), true, nil
}

// ExtBool parses an extFields value like Java's Boolean.parseBoolean: true
// only for a case-insensitive "true", false for anything else. present
// reports whether the key exists.
func (c *Command) ExtBool(key string) (value, present bool) {
	s, ok := c.ExtFields[key]
	return ok && strings.EqualFold(s, "true"), ok
}

// commonExtKeys are extFields keys RocketMQ peers send often. Decoding
// returns these constants instead of allocating a new string per request.
var commonExtKeys = map[string]string{}

func init() {
	for _, k := range []string{
		"topic", "brokerName", "brokerAddr", "clusterName", "cluster",
		"brokerId", "haServerAddr", "masterAddr", "namespace", "key", "value",
		"compressed", "bodyCrc32", "enableActingMaster",
		"heartbeatTimeoutMillis", "heartbeatTimeoutMills",
		"acceptStandardJsonOnly", "__ZONE_MODE", "__ZONE_NAME",
		"lo", "ns", "nsd", "bname", "oway", "epoch", "maxOffset",
		"confirmOffset", "electionPriority", "changed", "wipeTopicCount",
		"addTopicCount", "masterEpoch", "syncStateSetEpoch", "masterBrokerId",
		"masterAddress", "brokerClusterName", "brokerAddress", "minBrokerId",
		"minBrokerAddr", "offlineBrokerAddr", "haBrokerAddr", "isLeader",
		"controllerLeaderId", "controllerLeaderAddress", "peers", "group",
		"nextBrokerId", "appliedBrokerId", "registerCheckCode",
		"designateElect", "invokeTime", "newSyncStateSetEpoch",
		"isCleanLivingBroker", "brokerControllerIdsToClean",
	} {
		commonExtKeys[k] = k
	}
}

// internExtKey returns a string equal to b, shared for common keys.
func internExtKey(b []byte) string {
	if string(b) == "topic" { // every route lookup's, before the map's hashing
		return "topic"
	}
	if k, ok := commonExtKeys[string(b)]; ok {
		return k
	}
	return string(b)
}

// internExtValue returns a string equal to b, shared for common values.
func internExtValue(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "true":
		return "true"
	case "false":
		return "false"
	case "0":
		return "0"
	case "1":
		return "1"
	}
	return string(b)
}
