package wire

import (
	"hash/maphash"

	"github.com/rmqgo/nameserver/internal/splitmix"
	"github.com/rmqgo/nameserver/internal/yield"
)

// topicsSeed keys every TopicsDigest of the process.
var topicsSeed = maphash.MakeSeed()

// TopicsDigest is an order-independent digest of a registration's
// topic table: of the topic names, and of the queue fields a QueueData is
// built from. Each part is a sum of seeded 64-bit hashes, so equal tables
// give equal digests and different ones collide with probability about
// 2^-64. The zero value means "not computed".
type TopicsDigest struct {
	names, content uint64
	count          int // topics folded in
}

// Add folds one entry of the table into p. Call it exactly once per entry
// of the final table (a decoder that overwrites a duplicate key must start
// over with DigestTopics).
func (p *TopicsDigest) Add(tc TopicConfig) {
	h := maphash.String(topicsSeed, tc.TopicName)
	p.names += h
	p.content += contentHash(h, tc)
	p.count++
}

// Count is the number of entries folded in.
func (p *TopicsDigest) Count() int { return p.count }

// Names is the sum of the topic-name hashes: equal for equal topic sets.
func (p *TopicsDigest) Names() uint64 { return p.names }

// Content is the sum of the hashes of each topic's queue fields: equal
// for tables that build the same QueueData.
func (p *TopicsDigest) Content() uint64 { return p.content }

// DigestTopics computes the digest of tcs.
func DigestTopics(tcs map[string]TopicConfig) TopicsDigest {
	var p TopicsDigest
	for _, tc := range tcs {
		yield.At(p.count)
		p.Add(tc)
	}
	return p
}

// contentHash chains the QueueData fields of tc into the seeded name hash
// h, so fields cannot cancel out without knowing the seed.
func contentHash(h uint64, tc TopicConfig) uint64 {
	h = splitmix.Mix64(h ^ (uint64(uint32(tc.ReadQueueNums))<<32 | uint64(uint32(tc.WriteQueueNums))))
	return splitmix.Mix64(h ^ (uint64(uint32(tc.Perm))<<32 | uint64(uint32(tc.TopicSysFlag))))
}
