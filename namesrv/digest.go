package namesrv

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/remoting"
)

// registerDigest is the route.BodyDigest of a REGISTER_BROKER: SHA-256,
// truncated to 16 bytes, of the body and of every header field that
// changes what the body means or whom it belongs to (brokerName, brokerId,
// the request version, compressed and bodyCrc32 as sent). The broker's
// bodyCrc32 alone is not enough: it is the broker's to choose, and CRC-32
// collides at will. SHA-256 runs at about 2 GB/s with SHA-NI, 0.8 ms for
// a 10,000-topic body, against about 10 ms to decode it.
func registerDigest(req *remoting.Command, rr *route.RegisterRequest) route.BodyDigest {
	h := sha256.New()
	var buf [8]byte
	field := func(s string) {
		binary.BigEndian.PutUint64(buf[:], uint64(len(s)))
		h.Write(buf[:])
		h.Write([]byte(s))
	}
	field(rr.BrokerName)
	binary.BigEndian.PutUint64(buf[:], uint64(rr.BrokerID))
	h.Write(buf[:])
	binary.BigEndian.PutUint64(buf[:], uint64(int64(req.Version)))
	h.Write(buf[:])
	field(req.ExtFields["compressed"])
	field(req.ExtFields["bodyCrc32"])
	binary.BigEndian.PutUint64(buf[:], uint64(len(req.Body)))
	h.Write(buf[:])
	h.Write(req.Body)
	var d route.BodyDigest
	copy(d[:], h.Sum(nil))
	return d
}
