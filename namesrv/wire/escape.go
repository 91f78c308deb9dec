package wire

import "github.com/rmqgo/nameserver/internal/fastjson"

// Flavour selects which of the two fastjson dialects an encoder writes
// (see package internal/fastjson).
type Flavour = fastjson.Flavour

const (
	// FastjsonDefault is JSON.toJSONString with default features: numeric
	// map keys unquoted, maps in Java HashMap iteration order, non-ASCII and
	// "/" written raw.
	FastjsonDefault = fastjson.Default
	// Standard is BrowserCompatible|QuoteFieldNames|SkipTransientField|
	// MapSortField: every map key quoted, maps sorted, non-ASCII as \uXXXX
	// (uppercase hex), "/" as "\/", longs beyond ±2^53-1 quoted.
	Standard = fastjson.Standard
)

// appendBool appends a JSON boolean.
func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}
