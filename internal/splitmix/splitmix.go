package splitmix

// Mix64 is the splitmix64 finalizer, a bijection on 64-bit values: it
// spreads every input bit over the whole result, so sums and xors of
// seeded hashes passed through it cannot cancel out without the seed.
func Mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}
