package route

import (
	"hash/maphash"

	"github.com/rmqgo/nameserver/internal/yield"
)

// printSeed keys every TopicsPrint of the process.
var printSeed = maphash.MakeSeed()

// TopicsPrint is an order-independent fingerprint of a registration's
// topic table: of the topic names, and of the queue fields a QueueData is
// built from. Each part is a sum of seeded 64-bit hashes, so equal tables
// give equal prints and different ones collide with probability about
// 2^-64. The zero value means "not computed".
type TopicsPrint struct {
	names, content uint64
	count          int // topics folded in
}

// Add folds one entry of the table into p. Call it exactly once per entry
// of the final table (a decoder that overwrites a duplicate key must start
// over with PrintTopics).
func (p *TopicsPrint) Add(tc TopicConfig) {
	h := maphash.String(printSeed, tc.TopicName)
	p.names += h
	p.content += contentHash(h, tc)
	p.count++
}

// Count is the number of entries folded in.
func (p *TopicsPrint) Count() int { return p.count }

// PrintTopics computes the print of tcs.
func PrintTopics(tcs map[string]TopicConfig) TopicsPrint {
	var p TopicsPrint
	for _, tc := range tcs {
		yield.At(p.count)
		p.Add(tc)
	}
	return p
}

// printOf returns the body's print, computing it when the decoder did not
// (or the table no longer has the count it was computed for).
func printOf(b *RegisterBody) TopicsPrint {
	if b.Print.count == len(b.TopicConfigs) {
		return b.Print
	}
	return PrintTopics(b.TopicConfigs)
}

// contentHash chains the QueueData fields of tc into the seeded name hash
// h, so fields cannot cancel out without knowing the seed.
func contentHash(h uint64, tc TopicConfig) uint64 {
	h = mix64(h ^ (uint64(uint32(tc.ReadQueueNums))<<32 | uint64(uint32(tc.WriteQueueNums))))
	return mix64(h ^ (uint64(uint32(tc.Perm))<<32 | uint64(uint32(tc.TopicSysFlag))))
}

// mix64 is the splitmix64 finalizer, a bijection on 64-bit values.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// coverage remembers the topic set of the group's last registration: all
// of its topics had a QueueData of the group when Manager.removals was
// epoch. While no QueueData has been removed since, a registration with
// the same set and an unchanged DataVersion has nothing to add.
type coverage struct {
	print uint64 // TopicsPrint.names
	count int
	epoch uint64
	valid bool
}

// applied remembers the content of the group's last full application
// (every topic put, as with a new DataVersion): each topic held exactly
// the QueueData built from its config when Manager.edits was epoch. While
// no QueueData anywhere has changed since, a registration with the same
// content, even under a new DataVersion, would change nothing.
type applied struct {
	print uint64 // TopicsPrint.content
	count int
	epoch uint64
	strip bool // WRITE was stripped (prime slave of an acting-master group)
	valid bool
}
