// Package wire is the NameServer's wire format, shared by the NameServer,
// the admin client, mqadmin, the tools and the tests: the values its
// requests and answers carry (TopicRouteData, QueueData, BrokerData,
// ClusterInfo, TopicList, BrokerMemberGroup, DataVersion, TopicConfig,
// RegisterBody and the static-topic mapping, types.go), the decoded
// REGISTER_BROKER and UNREGISTER_BROKER requests with what they answer
// (requests.go), the digests of a registration (BodyDigest of the bytes, TopicsDigest of the topic table),
// and the codec of the bodies: the fastjson-compatible JSON of
// TopicRouteData, ClusterInfo, TopicList, KVTable, DataVersion and
// BrokerMemberGroup, and the REGISTER_BROKER body in its JSON, legacy and
// zlib-compressed forms.
//
// Encoders append to a caller-provided []byte without reflection and
// reproduce fastjson 1.2.83 output byte for byte: bean properties in
// alphabetical order, Java HashMap iteration order for maps in the default
// flavour, sorted maps and browser-compatible escaping in the standard
// flavour. Decoders use a small lenient scanner that also accepts fastjson's
// unquoted numeric map keys and quoted numbers; they never panic and bound
// the work a hostile body can cause.
//
// The register decoders fill RegisterBody.TopicsDigest while the table is hot and
// yield the processor to waiting goroutines every few hundred topics; a
// caller done with a decoded body hands its topic table back with
// ReleaseRegisterBody.
//
// The package knows nothing about route tables, request frames, headers or
// connections: callers hand it a body and get the values declared here
// back, or the reverse. The route tables (namesrv/route) take and return
// these values; nothing outside namesrv needs the tables to speak to a
// NameServer.
package wire

import "errors"

// Sentinel errors returned (wrapped with %w) by the decoders.
var (
	// ErrNullBody means the body was empty or the JSON literal null where an
	// object was required.
	ErrNullBody = errors.New("body: empty or null body")
	// ErrSyntax means the JSON text is malformed.
	ErrSyntax = errors.New("body: malformed JSON")
	// ErrType means a JSON value has a type the field cannot hold.
	ErrType = errors.New("body: unexpected JSON type")
	// ErrNumber means a number is malformed or out of range for its field.
	ErrNumber = errors.New("body: bad number")
	// ErrTooDeep means JSON nesting exceeds the scanner's depth limit.
	ErrTooDeep = errors.New("body: JSON nested too deeply")
	// ErrTooLarge means a compressed body inflates beyond the size limit.
	ErrTooLarge = errors.New("body: inflated body too large")
	// ErrCompressed means the zlib stream or its framing is corrupt or truncated.
	ErrCompressed = errors.New("body: corrupt compressed body")
	// ErrTopicConfig means a compressed TopicConfig line cannot be decoded.
	ErrTopicConfig = errors.New("body: malformed topic config line")
	// ErrNullTopicConfig means a topicConfigTable entry is null: Java's
	// ConcurrentHashMap refuses it, so its decoder fails.
	ErrNullTopicConfig = errors.New("body: null entry in topicConfigTable")
	// ErrVersion means the request version is negative (Java rejects it).
	ErrVersion = errors.New("body: invalid request version")
)
