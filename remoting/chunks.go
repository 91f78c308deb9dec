package remoting

import (
	"bytes"
	"math/bits"
	"sync"
)

// maxPooledChunk is the largest chunk buffer kept for reuse.
const maxPooledChunk = 4 << 20

// chunkPools recycle the buffers a large frame is read into before its
// chunks are joined: one pool per power of two from readChunk to
// maxPooledChunk. A pool empties itself over two garbage collections, so
// an idle server keeps none.
var chunkPools [chunkClasses]sync.Pool

// chunkClasses is the number of pooled sizes: 64 KiB, 128 KiB, ... 4 MiB.
const chunkClasses = 7

// chunkSize is the next chunk of a frame of n bytes of which got are read:
// at most a quarter of what arrived (rounded down to a power of two), at
// least readChunk, and no more than is left.
func chunkSize(n, got int) int { return min(n-got, chunkClass(got)) }

// chunkClass is the capacity of the next chunk once got bytes are read:
// the largest power of two at most max(readChunk, got/4).
func chunkClass(got int) int {
	c := max(readChunk, got/4)
	return 1 << (bits.Len(uint(c)) - 1)
}

// newChunk returns a buffer of size bytes for the chunk read after got
// bytes. A full chunk (size is chunkClass(got)) comes from its pool; a
// shorter one, a frame's last, is allocated at its size: the frame budget
// reserves size, and a pooled class behind a short chunk would hold up to
// twice that. Its contents are not zeroed: the read overwrites them.
func newChunk(size, got int) []byte {
	if p := chunkPool(size); p != nil && size == chunkClass(got) {
		if b, ok := p.Get().(*[]byte); ok {
			return (*b)[:size]
		}
	}
	return make([]byte, size)
}

// chunkPool returns the pool of buffers of capacity c, or nil.
func chunkPool(c int) *sync.Pool {
	i := bits.Len(uint(c/readChunk)) - 1
	if c < readChunk || c > maxPooledChunk || c != readChunk<<i {
		return nil
	}
	return &chunkPools[i]
}

// joinChunks returns the chunks of a frame as one slice; the chunks go
// back to their pools.
func joinChunks(chunks [][]byte) []byte {
	if len(chunks) == 1 {
		return chunks[0]
	}
	out := bytes.Join(chunks, nil) // not zeroed before it is copied into
	for i, chunk := range chunks {
		putChunk(chunk)
		chunks[i] = nil
	}
	return out
}

// putChunk gives a chunk buffer back to its pool.
func putChunk(b []byte) {
	if p := chunkPool(cap(b)); p != nil {
		b = b[:0]
		p.Put(&b)
	}
}
