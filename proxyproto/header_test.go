package proxyproto

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// v2Header builds a version 2 header as HAProxy sends it: signature,
// ver/cmd, fam/proto, length, addresses, tlvs.
func v2Header(verCmd, famProto byte, addrs []byte, tlvs []byte) []byte {
	b := append([]byte(nil), sigV2...)
	b = append(b, verCmd, famProto)
	b = binary.BigEndian.AppendUint16(b, uint16(len(addrs)+len(tlvs)))
	b = append(b, addrs...)
	return append(b, tlvs...)
}

// v4Block is an IPv4 address block: src, dst, sport, dport.
func v4Block(src, dst string, sport, dport uint16) []byte {
	s, d := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	b := append(s[:], d[:]...)
	b = binary.BigEndian.AppendUint16(b, sport)
	return binary.BigEndian.AppendUint16(b, dport)
}

func v6Block(src, dst string, sport, dport uint16) []byte {
	s, d := netip.MustParseAddr(src).As16(), netip.MustParseAddr(dst).As16()
	b := append(s[:], d[:]...)
	b = binary.BigEndian.AppendUint16(b, sport)
	return binary.BigEndian.AppendUint16(b, dport)
}

func read(t *testing.T, in []byte) (Header, []byte, error) {
	t.Helper()
	r := bufio.NewReaderSize(bytes.NewReader(in), 16)
	h, err := ReadHeader(r)
	rest, _ := bufio.NewReader(r).Peek(len(in))
	return h, rest, err
}

func TestReadHeaderValid(t *testing.T) {
	tlv := []byte{0x04, 0x00, 0x03, 'a', 'b', 'c'} // PP2_TYPE_NOOP
	for _, tc := range []struct {
		name string
		in   []byte
		want Header
	}{
		{"v1 tcp4", []byte("PROXY TCP4 192.0.2.1 198.51.100.2 56324 9876\r\n"),
			Header{Version: 1, Source: netip.MustParseAddrPort("192.0.2.1:56324"), Destination: netip.MustParseAddrPort("198.51.100.2:9876")}},
		{"v1 tcp6", []byte("PROXY TCP6 2001:db8::1 2001:db8::2 65535 0\r\n"),
			Header{Version: 1, Source: netip.MustParseAddrPort("[2001:db8::1]:65535"), Destination: netip.MustParseAddrPort("[2001:db8::2]:0")}},
		{"v1 unknown", []byte("PROXY UNKNOWN\r\n"), Header{Version: 1, Local: true}},
		{"v1 unknown with addresses", []byte("PROXY UNKNOWN ffff:f...f:ffff 1.2.3.4 65535 65535\r\n"), Header{Version: 1, Local: true}},
		{"v2 tcp4", v2Header(0x21, 0x11, v4Block("192.0.2.1", "198.51.100.2", 56324, 9876), nil),
			Header{Version: 2, Source: netip.MustParseAddrPort("192.0.2.1:56324"), Destination: netip.MustParseAddrPort("198.51.100.2:9876")}},
		{"v2 tcp6 with tlvs", v2Header(0x21, 0x21, v6Block("2001:db8::1", "2001:db8::2", 1, 2), tlv),
			Header{Version: 2, Source: netip.MustParseAddrPort("[2001:db8::1]:1"), Destination: netip.MustParseAddrPort("[2001:db8::2]:2")}},
		{"v2 local", v2Header(0x20, 0x00, nil, nil), Header{Version: 2, Local: true}},
		{"v2 local with tcp4 block", v2Header(0x20, 0x11, v4Block("10.0.0.1", "10.0.0.2", 1, 2), nil), Header{Version: 2, Local: true}},
		{"v2 proxy unspec", v2Header(0x21, 0x00, nil, tlv), Header{Version: 2, Local: true}},
		{"v2 unix stream", v2Header(0x21, 0x31, make([]byte, 216), nil), Header{Version: 2, Local: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := []byte{0, 0, 0, 8, 0, 0, 0, 4}
			h, rest, err := read(t, append(append([]byte(nil), tc.in...), frame...))
			require.NoError(t, err)
			require.Equal(t, tc.want, h)
			require.Equal(t, frame, rest, "bytes after the header stay for the frame reader")
		})
	}
}

func TestReadHeaderInvalid(t *testing.T) {
	long := "PROXY TCP4 " + strings.Repeat("1", 100) + "\r\n"
	good := v2Header(0x21, 0x11, v4Block("192.0.2.1", "198.51.100.2", 1, 2), nil)
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"v1 too long", []byte(long), ErrBadHeader},
		{"v1 no crlf", []byte("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n" + strings.Repeat("x", 200)), ErrBadHeader},
		{"v1 family mismatch", []byte("PROXY TCP4 2001:db8::1 1.2.3.4 1 2\r\n"), ErrBadHeader},
		{"v1 bad port", []byte("PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n"), ErrBadHeader},
		{"v1 leading zero port", []byte("PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n"), ErrBadHeader},
		{"v1 signed port", []byte("PROXY TCP4 1.2.3.4 5.6.7.8 +1 2\r\n"), ErrBadHeader},
		{"v1 missing field", []byte("PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n"), ErrBadHeader},
		{"v1 double space", []byte("PROXY TCP4  1.2.3.4 5.6.7.8 1 2\r\n"), ErrBadHeader},
		{"v1 udp", []byte("PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n"), ErrBadHeader},
		{"v1 truncated", []byte("PROXY TCP4 1.2.3.4 5.6"), ErrTruncated},
		{"signature truncated", sigV2[:7], ErrTruncated},
		{"no signature", []byte("GET / HTTP/1.1\r\n"), ErrBadHeader},
		{"v2 version 1", v2Header(0x11, 0x11, v4Block("1.2.3.4", "5.6.7.8", 1, 2), nil), ErrBadHeader},
		{"v2 command 2", v2Header(0x22, 0x11, v4Block("1.2.3.4", "5.6.7.8", 1, 2), nil), ErrBadHeader},
		{"v2 udp", v2Header(0x21, 0x12, v4Block("1.2.3.4", "5.6.7.8", 1, 2), nil), ErrBadHeader},
		{"v2 family 4", v2Header(0x21, 0x41, v4Block("1.2.3.4", "5.6.7.8", 1, 2), nil), ErrBadHeader},
		{"v2 length under block", v2Header(0x21, 0x21, v4Block("1.2.3.4", "5.6.7.8", 1, 2), nil), ErrBadHeader},
		{"v2 fixed part truncated", good[:14], ErrTruncated},
		{"v2 addresses truncated", good[:20], ErrTruncated},
		{"v2 tlvs truncated", v2Header(0x21, 0x11, v4Block("1.2.3.4", "5.6.7.8", 1, 2), make([]byte, 100))[:40], ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := read(t, tc.in)
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func TestDetectPlainStreamKeepsBytes(t *testing.T) {
	for _, in := range [][]byte{
		{0, 0, 0, 30, 0, 0, 0, 20},       // a remoting frame
		{0x16, 3, 1, 0, 5},               // a TLS ClientHello
		[]byte("PROXX TCP4"),             // diverges inside the v1 signature
		[]byte("\r\n\r\n\x00\r\nQUIX\n"), // diverges inside the v2 signature
	} {
		r := bufio.NewReaderSize(bytes.NewReader(in), 16)
		v, err := Detect(r)
		require.NoError(t, err)
		require.Zero(t, v, "%q", in)
		got, _ := r.Peek(len(in))
		require.Equal(t, in, got)
	}
}

func BenchmarkReadHeader(b *testing.B) {
	for _, bc := range []struct {
		name string
		in   []byte
	}{
		{"v1", []byte("PROXY TCP4 192.0.2.1 198.51.100.2 56324 9876\r\n")},
		{"v2", v2Header(0x21, 0x11, v4Block("192.0.2.1", "198.51.100.2", 56324, 9876), nil)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			src := bytes.NewReader(bc.in)
			r := bufio.NewReaderSize(src, readerSize)
			b.ReportAllocs()
			for range b.N {
				src.Reset(bc.in)
				r.Reset(src)
				if _, err := ReadHeader(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
