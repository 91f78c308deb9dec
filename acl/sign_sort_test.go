package acl

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
)

// TestAttackHighRuneKeysSortWithoutAllocating: the signature check sorts
// the request's extFields keys, and a key holding a rune from U+E000 up
// made every comparison convert both keys to UTF-16: a header of many such
// keys (up to the 16 MiB header bound, about a million) cost an allocation
// per comparison and seconds of CPU per request, to anyone knowing an
// access key (they are not secret; a reader's will do). Sorting allocates
// nothing but the key slice now.
func TestAttackHighRuneKeysSortWithoutAllocating(t *testing.T) {
	ext := map[string]string{}
	for i := range 2000 {
		ext[fmt.Sprintf("\ue000k%05d", i)] = "v"
	}
	allocs := testing.AllocsPerRun(5, func() { sortedKeys(ext, "") })
	require.LessOrEqual(t, allocs, 2.0)
}

// TestJavaCompareMatchesUTF16Order checks javaCompare against the UTF-16
// code-unit order on random strings (BMP, private use, supplementary and
// invalid UTF-8); RMQ_SEED replays a seed.
func TestJavaCompareMatchesUTF16Order(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("RMQ_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (RMQ_SEED=%d replays)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	pieces := []string{"a", "z", "\u00e9", "\ud7ff", "\ue000", "\uffff", "\U00010000", "\U0001f600", "\U0010ffff", "\xff", "\xee", ""}
	gen := func() string {
		s := ""
		for range rng.IntN(5) {
			s += pieces[rng.IntN(len(pieces))]
		}
		return s
	}
	for range 20000 {
		a, b := gen(), gen()
		want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		require.Equal(t, want, javaCompare(a, b), "%q vs %q", a, b)
	}
}
