package backupfile

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBackupFileDamageRefused: every truncation, extension and single bit
// flip of a backup file, and random bytes, are refused with ErrBad;
// none panics or is read as a backup.
func TestBackupFileDamageRefused(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	data := make([]byte, 200+rng.IntN(2000))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	b := &Backup{Index: rng.Uint64(), Term: rng.Uint64(), Taken: time.UnixMilli(rng.Int64N(1 << 42)), Data: data}
	enc := b.Encode()
	got, err := Decode(enc, int64(len(data)))
	require.NoError(t, err)
	require.Equal(t, b.Data, got.Data)
	require.Equal(t, b.Taken, got.Taken)
	_, err = Decode(enc, int64(len(data))-1)
	require.ErrorIs(t, err, ErrBad, "over the bound")
	for cut := range len(enc) {
		_, err := Decode(enc[:cut], 1<<20)
		require.ErrorIs(t, err, ErrBad, "truncated to %d of %d bytes", cut, len(enc))
	}
	_, err = Decode(append(enc[:len(enc):len(enc)], 0), 1<<20)
	require.ErrorIs(t, err, ErrBad, "extended")
	for bit := range 8 * len(enc) {
		bad := append([]byte(nil), enc...)
		bad[bit/8] ^= 1 << (bit % 8)
		_, err := Decode(bad, 1<<20)
		require.ErrorIs(t, err, ErrBad, "bit %d flipped", bit)
	}
	for range 1000 {
		junk := make([]byte, rng.IntN(300))
		for i := range junk {
			junk[i] = byte(rng.Uint32())
		}
		if rng.IntN(2) == 0 && len(junk) >= 8 {
			copy(junk, backupMagic[:])
		}
		_, err := Decode(junk, 1<<20)
		require.ErrorIs(t, err, ErrBad)
	}
}
