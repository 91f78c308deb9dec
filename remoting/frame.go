package remoting

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// DefaultMaxFrameLength is the default largest frame, length field included.
// Java's 16 MiB fails for brokers with 60-70k topics; 64 MiB lets a broker
// with 100,000 topics register.
const DefaultMaxFrameLength = 64 << 20

// maxHeaderLength is the largest header the 24-bit header length can carry.
const maxHeaderLength = 1<<24 - 1

// readChunk is the smallest piece in which ReadFrame reads a large frame
// as its bytes arrive.
const readChunk = 64 << 10

// EncodeFrame appends c as a complete frame (length field included) to dst.
// On an encoding error (a header that does not fit the frame format, see
// AppendFrame) it returns dst unchanged.
func EncodeFrame(dst []byte, c *Command) []byte {
	out, err := AppendFrame(dst, c)
	if err != nil {
		return dst
	}
	return out
}

// AppendFrame is EncodeFrame returning the error: ErrBadSerializeType for an
// unknown c.SerializeType, ErrHeaderTooLarge for a header longer than
// 16 MiB-1 or a frame longer than 2 GiB-1. On error dst is returned
// unchanged in length.
func AppendFrame(dst []byte, c *Command) ([]byte, error) {
	out, err := appendFrameHead(dst, c)
	if err != nil {
		return out, err
	}
	return append(out, c.Body...), nil
}

// appendFrameHead is AppendFrame without the body: the length field counts
// it, and the caller writes it right after.
func appendFrameHead(dst []byte, c *Command) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	var err error
	switch c.SerializeType {
	case SerializeJSON:
		dst = appendJSONHeader(dst, c)
	case SerializeRocketMQ:
		dst, err = appendRocketMQHeader(dst, c)
	default:
		err = fmt.Errorf("%w: %d", ErrBadSerializeType, c.SerializeType)
	}
	headerLen := len(dst) - start - 8
	if err == nil && headerLen > maxHeaderLength {
		err = fmt.Errorf("%w: %d bytes", ErrHeaderTooLarge, headerLen)
	}
	if err == nil && 4+int64(headerLen)+int64(len(c.Body)) > math.MaxInt32 {
		err = fmt.Errorf("%w: frame longer than 2 GiB", ErrHeaderTooLarge)
	}
	if err != nil {
		return dst[:start], err
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4+len(c.Body)))
	binary.BigEndian.PutUint32(dst[start+4:], uint32(c.SerializeType)<<24|uint32(headerLen))
	return dst, nil
}

// DecodeFrame decodes a frame without its 4-byte length field: the header
// word, the header and the body. The Command does not alias frame.
func DecodeFrame(frame []byte) (*Command, error) {
	return decodeFrame(frame, true)
}

// decodeFrame decodes frame; with copyBody false the body aliases frame.
func decodeFrame(frame []byte, copyBody bool) (*Command, error) {
	c := &Command{}
	if _, err := decodeFrameInto(frame, copyBody, c, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeFrameInto decodes frame into c (which must be zeroed), filling
// spare (an empty map, or nil) as a JSON header's extFields instead of a new
// map; usedSpare reports whether it did.
func decodeFrameInto(frame []byte, copyBody bool, c *Command, spare map[string]string) (usedSpare bool, err error) {
	if len(frame) < 4 {
		return false, fmt.Errorf("%w: %d bytes, no header word", ErrFrameTruncated, len(frame))
	}
	word := binary.BigEndian.Uint32(frame)
	headerLen := int(word & maxHeaderLength)
	if headerLen > len(frame)-4 {
		return false, fmt.Errorf("%w: header length %d exceeds frame of %d", ErrBadHeader, headerLen, len(frame))
	}
	c.SerializeType = SerializeType(word >> 24)
	header := frame[4 : 4+headerLen]
	switch c.SerializeType {
	case SerializeJSON:
		usedSpare, err = decodeJSONHeaderSpare(header, c, spare)
	case SerializeRocketMQ:
		err = decodeRocketMQHeader(header, c)
	default:
		err = fmt.Errorf("%w: %d", ErrBadSerializeType, word>>24)
	}
	if err != nil {
		return usedSpare, err
	}
	if body := frame[4+headerLen:]; len(body) > 0 {
		c.Body = body
		if copyBody {
			c.Body = slices.Clone(body)
		}
	}
	return usedSpare, nil
}

// ReadFrame reads one frame from r and returns it without its length field
// (ready for DecodeFrame). The returned slice reuses buf when it is large
// enough. The length is validated before anything is allocated: negative or
// below 4 gives ErrBadFrameLength, above maxFrame-4 (Netty counts the length
// field) gives ErrFrameTooLarge; maxFrame <= 0 means
// DefaultMaxFrameLength. A large frame's buffer grows only as its bytes
// arrive. io.EOF at a frame boundary is returned as is; EOF inside a frame
// gives ErrFrameTruncated.
func ReadFrame(r *bufio.Reader, maxFrame int, buf []byte) ([]byte, error) {
	length, err := readLength(r, maxFrame)
	if err != nil {
		return nil, err
	}
	return readFrameBody(r, length, buf)
}

// readLength reads and validates a frame's length field (see ReadFrame).
func readLength(r *bufio.Reader, maxFrame int) (int, error) {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrameLength
	}
	// Peek and Discard instead of io.ReadFull into a local array, which
	// escapes through the io.Reader interface: one allocation per frame.
	lenBuf, err := r.Peek(4)
	if err != nil {
		if len(lenBuf) == 0 && errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, truncated(err)
	}
	length := int64(int32(binary.BigEndian.Uint32(lenBuf)))
	_, _ = r.Discard(4)
	if length < 4 {
		return 0, fmt.Errorf("%w: %d", ErrBadFrameLength, length)
	}
	if length > int64(maxFrame)-4 {
		return 0, fmt.Errorf("%w: %d bytes, max %d", ErrFrameTooLarge, length+4, maxFrame)
	}
	return int(length), nil
}

// readFrameBody reads n bytes into buf when it is large enough or n is at
// most readChunk. A larger frame is read in chunks allocated as its bytes
// arrive (each at most a quarter of what arrived, and at least readChunk),
// then joined: a peer that stops inside a frame holds at most 1.25 times
// what it sent plus readChunk.
func readFrameBody(r io.Reader, n int, buf []byte) ([]byte, error) {
	if n <= cap(buf) || n <= readChunk {
		if n > cap(buf) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		_, err := io.ReadFull(r, buf)
		return buf, truncated(err)
	}
	var chunks [][]byte
	for got := 0; got < n; {
		chunk := newChunk(chunkSize(n, got), got)
		if _, err := io.ReadFull(r, chunk); err != nil {
			return nil, truncated(err)
		}
		chunks = append(chunks, chunk)
		got += len(chunk)
	}
	return joinChunks(chunks), nil
}

// truncated maps an EOF inside a frame to ErrFrameTruncated.
func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %w", ErrFrameTruncated, io.ErrUnexpectedEOF)
	}
	return err
}
