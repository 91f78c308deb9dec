package remoting

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAttackChunkCapacityIsWhatIsReserved: readArriving reserves a
// chunk's length from the frame budget, so the buffer behind it must be
// no larger. A frame whose last chunk is short (a peer that sends 64 KiB
// and then 1 byte of a 64 KiB+2 frame) otherwise holds a whole pooled
// class for it: twice what the budget counts, per connection.
func TestAttackChunkCapacityIsWhatIsReserved(t *testing.T) {
	for _, n := range []int{readChunk + 2, 2*readChunk + 1, 3*readChunk + 7, 1_660_287, 5<<20 + 1} {
		for round := range 2 { // the second round takes buffers from the pools
			var chunks [][]byte
			for got := 0; got < n; {
				size := chunkSize(n, got)
				c := newChunk(size, got)
				require.Equal(t, size, cap(c), "frame %d, round %d, chunk at %d", n, round, got)
				chunks = append(chunks, c)
				got += size
			}
			require.Len(t, joinChunks(chunks), n)
		}
	}
}
