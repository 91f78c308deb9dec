package remoting

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChunksStayWithinTheArrivalBound: the chunks of a frame add up to it,
// and no chunk's buffer (pooled or not) is larger than a quarter of what
// arrived before it, or readChunk, which bounds what a peer that stops
// inside a frame holds.
func TestChunksStayWithinTheArrivalBound(t *testing.T) {
	for _, n := range []int{readChunk + 1, 3*readChunk + 7, 1_660_287, 5 << 20, 20<<20 + 3} {
		var chunks [][]byte
		for got := 0; got < n; {
			c := newChunk(chunkSize(n, got), got)
			require.LessOrEqual(t, cap(c), max(readChunk, got/4), "frame %d, chunk at %d", n, got)
			for i := range c {
				c[i] = byte(got + i)
			}
			chunks = append(chunks, c)
			got += len(c)
		}
		frame := joinChunks(chunks)
		require.Len(t, frame, n)
		for i := 0; i < n; i += 4093 {
			require.Equal(t, byte(i), frame[i], "frame %d, byte %d", n, i)
		}
	}
}

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
