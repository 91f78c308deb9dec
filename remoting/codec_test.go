package remoting

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Header word vectors of RemotingCommandTest.java.
func TestHeaderWordVectors(t *testing.T) {
	c := &Command{Code: 1, Remark: "x"}
	base := len(EncodeFrame(nil, c)) - 8
	c.Remark = strings.Repeat("x", 1+261-base)
	f := frameOf(t, c)
	require.Equal(t, []byte{0x00, 0x00, 0x01, 0x05}, f[4:8])

	big := &Command{SerializeType: SerializeRocketMQ, Remark: strings.Repeat("r", 0xFFFFFF-rocketMQFixedLen)}
	f = frameOf(t, big)
	require.Equal(t, []byte{0x01, 0xFF, 0xFF, 0xFF}, f[4:8])
	big.Remark += "r"
	_, err := AppendFrame(nil, big)
	require.ErrorIs(t, err, ErrHeaderTooLarge)
	require.Empty(t, EncodeFrame(nil, big))
}

// Binary header vectors of RocketMQSerializableTest.java.
func TestRocketMQHeaderVectors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remark string
		ext    map[string]string
		size   int
	}{
		{"bare", "", nil, 21},
		{"remark", "Sample Remark", nil, 34},
		{"ext", "", map[string]string{"key": "value"}, 35},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Command{Code: 1, Language: "JAVA", Version: 7, Opaque: 9, Remark: tc.remark,
				ExtFields: tc.ext, SerializeType: SerializeRocketMQ}
			h, err := appendRocketMQHeader(nil, c)
			require.NoError(t, err)
			require.Len(t, h, tc.size)
			if tc.ext != nil {
				require.Equal(t, uint32(14), binary.BigEndian.Uint32(h[17:]))
			}
			got, err := DecodeFrame(frameOf(t, c)[4:])
			require.NoError(t, err)
			require.Equal(t, c, got)
		})
	}
}

func TestRocketMQHeaderJavaNulls(t *testing.T) {
	c := &Command{Code: -2, Language: "NOPE", ExtFields: map[string]string{"a": "", "b": "x", "": "y"},
		SerializeType: SerializeRocketMQ, Version: 40000}
	got, err := DecodeFrame(frameOf(t, c)[4:])
	require.NoError(t, err)
	require.Equal(t, int32(-2), got.Code)
	require.Equal(t, "OTHER", got.Language)
	require.Equal(t, int32(int16(-25536)), got.Version)
	require.Equal(t, map[string]string{"b": "x"}, got.ExtFields)
}

func TestRocketMQHeaderErrors(t *testing.T) {
	fixed := func(remarkLen, extLen int32, rest ...byte) []byte {
		h := make([]byte, 13)
		h = binary.BigEndian.AppendUint32(h, uint32(remarkLen))
		h = binary.BigEndian.AppendUint32(h, uint32(extLen))
		return append(h, rest...)
	}
	for name, h := range map[string][]byte{
		"short":           make([]byte, 20),
		"remark too long": fixed(100, 0),
		"remark negative": fixed(-1, 0),
		"ext too long":    fixed(0, 50, 1, 2),
		"key overruns":    fixed(0, 4, 0, 9, 'a', 'b'),
		"value overruns":  fixed(0, 8, 0, 1, 'k', 0, 0, 0, 9, 'v'),
		"half key length": fixed(0, 1, 0),
	} {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, decodeRocketMQHeader(h, &Command{}), ErrBadHeader)
		})
	}
	var c Command
	require.NoError(t, decodeRocketMQHeader(fixed(0, -5), &c), "negative ext length = null map, as in Java")
	require.Nil(t, c.ExtFields)
}

func TestDecodeFrameErrors(t *testing.T) {
	_, err := DecodeFrame([]byte{0, 0, 1})
	require.ErrorIs(t, err, ErrFrameTruncated)
	_, err = DecodeFrame([]byte{0, 0, 0, 9, '{', '}'})
	require.ErrorIs(t, err, ErrBadHeader)
	_, err = DecodeFrame([]byte{2, 0, 0, 2, '{', '}'})
	require.ErrorIs(t, err, ErrBadSerializeType)
	_, err = DecodeFrame([]byte{0, 0, 0, 3, 'x', 'y', 'z'})
	require.ErrorIs(t, err, ErrBadHeader)
	_, err = AppendFrame(nil, &Command{SerializeType: 5})
	require.ErrorIs(t, err, ErrBadSerializeType)
}

func TestDecodeFrameBody(t *testing.T) {
	f := frameOf(t, &Command{Code: 7, Body: []byte("hello")})
	c, err := DecodeFrame(f[4:])
	require.NoError(t, err)
	require.Equal(t, []byte("hello"), c.Body)
	f[len(f)-1] = '!'
	require.Equal(t, []byte("hello"), c.Body, "body must not alias the frame")

	c, err = DecodeFrame(frameOf(t, &Command{Code: 7, Body: []byte{}})[4:])
	require.NoError(t, err)
	require.Nil(t, c.Body)
}

func lengthPrefix(n int32, rest ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(n)), rest...)
}

func TestReadFrame(t *testing.T) {
	read := func(b []byte, max int) ([]byte, error) {
		return ReadFrame(bufio.NewReader(bytes.NewReader(b)), max, nil)
	}
	_, err := read(lengthPrefix(-1), 0)
	require.ErrorIs(t, err, ErrBadFrameLength)
	_, err = read(lengthPrefix(3, 0, 0, 0), 0)
	require.ErrorIs(t, err, ErrBadFrameLength)
	_, err = read(lengthPrefix(DefaultMaxFrameLength-3), 0)
	require.ErrorIs(t, err, ErrFrameTooLarge)
	_, err = read(lengthPrefix(97), 100)
	require.ErrorIs(t, err, ErrFrameTooLarge)
	_, err = read(lengthPrefix(10, 1, 2), 0)
	require.ErrorIs(t, err, ErrFrameTruncated)
	_, err = read([]byte{0, 0}, 0)
	require.ErrorIs(t, err, ErrFrameTruncated)
	_, err = read(nil, 0)
	require.ErrorIs(t, err, io.EOF)
	f, err := read(lengthPrefix(96, make([]byte, 96)...), 100)
	require.NoError(t, err)
	require.Len(t, f, 96)
}

func TestReadFrameReusesBuffer(t *testing.T) {
	buf := make([]byte, 0, 64)
	f, err := ReadFrame(bufio.NewReader(bytes.NewReader(lengthPrefix(8, make([]byte, 8)...))), 0, buf)
	require.NoError(t, err)
	require.Equal(t, &buf[:1][0], &f[0])
}

// A peer announcing 64 MiB and sending 1 MiB costs about 2 MiB, not 64.
func TestReadFrameGrowsWithData(t *testing.T) {
	data := lengthPrefix(DefaultMaxFrameLength-4, make([]byte, 1<<20)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadFrame(bufio.NewReader(bytes.NewReader(data)), 0, nil)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrFrameTruncated)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20))

	full := lengthPrefix(4<<20, make([]byte, 4<<20)...)
	f, err := ReadFrame(bufio.NewReader(bytes.NewReader(full)), 0, nil)
	require.NoError(t, err)
	require.Len(t, f, 4<<20)
}

func TestExtHelpers(t *testing.T) {
	c := NewRequest(RegisterBroker, nil, nil)
	c.SetExt("id", "+42")
	c.SetExt("bad", "4x")
	c.SetExt("big", "9223372036854775807")
	c.SetExt("flag", "TRUE")
	c.SetExt("no", "yes")
	v, ok, err := c.ExtInt64("id")
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, int64(42), v)
	_, ok, err = c.ExtInt64("bad")
	require.True(t, ok)
	require.ErrorIs(t, err, ErrBadExtField)
	_, ok, err = c.ExtInt64("missing")
	require.False(t, ok)
	require.NoError(t, err)
	_, _, err = c.ExtInt32("big")
	require.ErrorIs(t, err, ErrBadExtField)
	b, present := c.ExtBool("flag")
	require.True(t, b && present)
	b, present = c.ExtBool("no")
	require.True(t, !b && present)
	s, ok := c.ExtString("id")
	require.True(t, ok)
	require.Equal(t, "+42", s)
}

func TestNewResponse(t *testing.T) {
	req := &Command{Code: 105, Opaque: 77, Flag: FlagOneway, Language: "GO", Version: 317}
	resp := NewResponse(req, TopicNotExist, "nope")
	require.Equal(t, &Command{Code: 17, Language: "JAVA", Version: CurrentVersion, Opaque: 77, Flag: FlagResponse, Remark: "nope"}, resp)
	require.True(t, resp.IsResponse())
	require.False(t, resp.IsOneway())
	req2 := NewRequest(GetRouteinfoByTopic, map[string]string{"topic": "T"}, nil)
	req2.MarkOneway()
	require.True(t, req2.IsOneway())
	require.False(t, req2.IsResponse())
}
