//go:build embedded_controller

package controller

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rmqgo/nameserver/config"
)

// The validation boundary of the replicated state (docs/controller.md
// section 2.7): every string a command builder puts into an event is one
// of the types below, and only the parse functions of this file convert
// to them (TestValidatedTypesBuiltOnlyByParse checks the package's
// source). Apply checks the same rules again on entries whose leader
// checked them (legacy.go applies the others),
// with the hard ceilings (code constants) in place of the configured
// limits, so its result depends on the log alone.

// clusterName is a cluster name that passed nameRule.
type clusterName string

// brokerName is a broker set name that passed nameRule.
type brokerName string

// brokerAddr is a broker address "host:port" that passed addrRule.
type brokerAddr string

// checkCode is a registerCheckCode "<brokerAddr>;<millis>" that passed
// checkCodeRule.
type checkCode string

// Hard size limits of the strings of an entry, the same on every node.
const (
	// maxAddrBytes fits a 253-byte DNS name, brackets, a colon and a port.
	maxAddrBytes = 261
	// maxCheckCodeBytes is an address, ';' and a 19-digit millisecond time.
	maxCheckCodeBytes = maxAddrBytes + 1 + 19
)

// nameRule returns the rule raw breaks as a cluster or broker name, or "":
// non-empty, at most maxLen bytes, valid UTF-8, no control or invisible
// formatting character (invisibleRune), no white space at either end (Java
// trims every string property, so a broker never sends one).
func nameRule(raw string, maxLen int) string {
	switch {
	case raw == "":
		return "must not be empty"
	case len(raw) > maxLen:
		return fmt.Sprintf("must be at most %d bytes (got %d)", maxLen, len(raw))
	case strings.TrimSpace(raw) != raw:
		return "must not begin or end with white space"
	}
	return textRule(raw)
}

// textRule: valid UTF-8 without control or invisible formatting characters.
func textRule(raw string) string {
	for i, r := range raw {
		if r == utf8.RuneError && !strings.HasPrefix(raw[i:], "\uFFFD") {
			return fmt.Sprintf("must be valid UTF-8 (bad byte at offset %d)", i)
		}
		if invisibleRune(r) {
			return fmt.Sprintf("must not contain control or invisible character %U (offset %d)", r, i)
		}
	}
	return ""
}

// invisibleRune reports the C0 and C1 controls, DEL, and a fixed list of
// invisible formatting characters (zero-width, bidirectional overrides,
// byte order mark) that would make two names print alike. The list is
// written out, not taken from the unicode tables, so that every binary
// agrees on it whatever its Go version.
func invisibleRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2064,
		r >= 0x2066 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}

// addrRule returns the rule raw breaks as a broker address, or "": at most
// maxAddrBytes, text without white space or ';', and "host:port" split at
// the last colon (Java brokers write IPv6 addresses without brackets) with
// a non-empty host and a port 1..65535.
func addrRule(raw string) string {
	if len(raw) > maxAddrBytes {
		return fmt.Sprintf("must be at most %d bytes (got %d)", maxAddrBytes, len(raw))
	}
	if p := textRule(raw); p != "" {
		return p
	}
	if strings.ContainsAny(raw, " ;") {
		return "must not contain white space or ';'"
	}
	i := strings.LastIndexByte(raw, ':')
	if i <= 0 {
		return "must be host:port"
	}
	if port, err := strconv.ParseUint(raw[i+1:], 10, 16); err != nil || port == 0 {
		return "must end with a port 1..65535"
	}
	return ""
}

// checkCodeRule returns the rule raw breaks as a registerCheckCode, or "":
// an address (addrRule), optionally followed by ';' and 1 to 19 digits.
func checkCodeRule(raw string) string {
	if len(raw) > maxCheckCodeBytes {
		return fmt.Sprintf("must be at most %d bytes (got %d)", maxCheckCodeBytes, len(raw))
	}
	addr, millis, found := strings.Cut(raw, ";")
	if p := addrRule(addr); p != "" {
		return "must start with the broker address, which " + p
	}
	if _, err := strconv.ParseUint(millis, 10, 64); found && (err != nil || len(millis) > 19) {
		return "must end with ';' and a time in ms"
	}
	return ""
}

// raiseNoCeiling is the raise value of a name past its ceiling: no key
// lets it pass.
const raiseNoCeiling = "none: 255 bytes is the ceiling"

// invalidField is the 2005 rejection of one field.
func invalidField(field, rule string) error {
	e := newError(errInvalidField, "%s %s", field, rule)
	e.Field = field
	return e
}

// invalidName is invalidField for a name, naming controllerMaxNameLength
// when raising it up to its ceiling would let the name pass.
func invalidName(field, raw string, maxLen int, rule string) error {
	err := invalidField(field, rule)
	switch {
	case len(raw) > hardLimits.NameLength:
		err.(*domainError).Key = raiseNoCeiling
	case len(raw) > maxLen:
		err.(*domainError).Key = "controllerMaxNameLength"
	}
	return err
}

func parseClusterName(raw string, maxLen int) (clusterName, error) {
	if p := nameRule(raw, maxLen); p != "" {
		return "", invalidName("clusterName", raw, maxLen, p)
	}
	return clusterName(raw), nil
}

func parseBrokerName(raw string, maxLen int) (brokerName, error) {
	if p := nameRule(raw, maxLen); p != "" {
		return "", invalidName("brokerName", raw, maxLen, p)
	}
	return brokerName(raw), nil
}

// parseSetName parses the name of a request that changes an existing set
// only: a valid name, or the name of a set already stored (one an older
// version accepted), so that such a set can still be elected for and
// cleaned.
func (s *state) parseSetName(raw string, maxLen int) (brokerName, error) {
	if s.known(raw) {
		return brokerName(raw), nil
	}
	return parseBrokerName(raw, maxLen)
}

// known reports whether either half or the tombstone of a set is stored.
func (s *state) known(name string) bool {
	_, r := s.replicas[name]
	_, ss := s.syncStates[name]
	_, t := s.retired[name]
	return r || ss || t
}

func parseAddr(field, raw string) (brokerAddr, error) {
	if p := addrRule(raw); p != "" {
		return "", invalidField(field, p)
	}
	return brokerAddr(raw), nil
}

// parseCheckCode returns the code and the address it starts with.
func parseCheckCode(raw string) (checkCode, brokerAddr, error) {
	if raw == "" {
		return "", "", newError(errInvalidRequest, "registerCheckCode is empty")
	}
	if p := checkCodeRule(raw); p != "" {
		return "", "", invalidField("registerCheckCode", p)
	}
	return checkCode(raw), brokerAddr(brokerAddressOf(raw)), nil
}

// stateLimits are the bounds of the replicated state a builder enforces
// (config.StateBounds); Apply enforces hardLimits. The leader's builders
// also count and make reservations (held, in the leader term term,
// reserve.go); nil held reserves nothing.
type stateLimits struct {
	BrokerSets, BrokersPerSet, NameLength int
	StateBytes                            int64
	held                                  *reservations
	term                                  uint64
}

// defaultLimits are config's defaults; hardLimits its ceilings.
var (
	defaultLimits = stateLimits{BrokerSets: config.DefaultControllerMaxBrokerSets,
		BrokersPerSet: config.DefaultControllerMaxBrokersPerSet, NameLength: config.DefaultControllerMaxNameLength,
		StateBytes: config.DefaultControllerMaxStateBytes}
	hardLimits = stateLimits{BrokerSets: config.MaxControllerBrokerSets, BrokersPerSet: config.MaxControllerBrokersPerSet,
		NameLength: config.MaxControllerNameLength, StateBytes: config.MaxControllerStateBytes}
)

// limitsOf reads the configured bounds, never above the hard ceilings.
func limitsOf(b config.StateBounds) stateLimits {
	return stateLimits{BrokerSets: min(b.ControllerMaxBrokerSets, hardLimits.BrokerSets),
		BrokersPerSet: min(b.ControllerMaxBrokersPerSet, hardLimits.BrokersPerSet),
		NameLength:    min(b.ControllerMaxNameLength, hardLimits.NameLength),
		StateBytes:    min(b.ControllerMaxStateBytes, hardLimits.StateBytes)}
}
