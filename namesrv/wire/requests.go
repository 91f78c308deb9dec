package wire

// HeartbeatTimeoutNone is RegisterRequest.HeartbeatTimeoutMillis for a
// heartbeatTimeoutMillis of 0 or below: Java keeps it, so the broker
// expires at the first scan after its last refresh.
const HeartbeatTimeoutNone int64 = -1

// Channel is a broker's connection. The route manager compares channels by
// identity (==) and keys an index by them, so implementations must be
// comparable (pointer types are). A nil Channel is allowed and never closed.
type Channel interface {
	Close() error
}

// MinBrokerIDChange is one NOTIFY_MIN_BROKER_ID_CHANGE (905) to send oneway
// to every address of TargetAddrs. Empty strings mean null header fields.
type MinBrokerIDChange struct {
	TargetAddrs       []string
	MinBrokerID       int64
	MinBrokerAddr     string
	OfflineBrokerAddr string
	HABrokerAddr      string
}

// RegisterRequest is a decoded REGISTER_BROKER.
type RegisterRequest struct {
	ClusterName, BrokerAddr, BrokerName, HAServerAddr, ZoneName string
	BrokerID                                                    int64
	// HeartbeatTimeoutMillis: 0 = absent (route.DefaultBrokerTimeout),
	// negative = HeartbeatTimeoutNone; capped at route.MaxBrokerTimeout.
	HeartbeatTimeoutMillis int64
	EnableActingMaster     *bool // nil = old-version broker
	Body                   *RegisterBody
	Channel                Channel
	// BodyDigest, when set, is recorded with the live entry so that a
	// byte-identical re-registration can use route.Manager.RegisterIfUnchanged.
	BodyDigest BodyDigest
}

// RegisterResult is what REGISTER_BROKER answers in its header; empty
// strings are omitted.
type RegisterResult struct {
	HAServerAddr, MasterAddr string
}

// UnregisterRequest is a decoded UNREGISTER_BROKER.
type UnregisterRequest struct {
	ClusterName, BrokerAddr, BrokerName string
	BrokerID                            int64
}

// BodyDigest identifies a registration body: a hash (the namesrv
// processor's registerDigest: half of a seeded 128-bit XXH3 of the body,
// and a seeded 64-bit maphash over all of it, the body's length and
// whatever else changes how the body decodes or whom it belongs to:
// broker name and id, request version, compressed flag, bodyCrc32; 16
// bytes). The zero value means "none".
type BodyDigest [16]byte
