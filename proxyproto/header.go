package proxyproto

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
)

// Signatures and sizes of the HAProxy PROXY protocol
// (https://www.haproxy.org/download/2.9/doc/proxy-protocol.txt), the ones
// Netty's HAProxyMessageDecoder.detectProtocol looks for.
var (
	sigV1 = []byte("PROXY ")
	sigV2 = []byte("\r\n\r\n\x00\r\nQUIT\n")
)

const (
	// maxV1Line is the longest version 1 line, CRLF included.
	maxV1Line = 107
	// v2Fixed is the fixed part of a version 2 header: signature,
	// version/command, family/protocol and the 16-bit length.
	v2Fixed = 16
)

// Header is what a PROXY header says about the connection.
type Header struct {
	// Version is 1 (text) or 2 (binary).
	Version int
	// Local is true when the header carries no client address (v2 LOCAL
	// command, v1 UNKNOWN, or a family without IP addresses): the
	// connection's own addresses stand.
	Local bool
	// Source and Destination are the client's and the proxy's listening
	// address as the proxy saw them; zero when Local.
	Source, Destination netip.AddrPort
}

// Detect reports which header version r starts with (0: none). It reads
// only as far as the bytes match a signature, so a plain stream loses
// nothing; the bytes stay buffered in r.
func Detect(r *bufio.Reader) (int, error) {
	for _, v := range []struct {
		sig     []byte
		version int
	}{{sigV1, 1}, {sigV2, 2}} {
		ok, err := hasPrefix(r, v.sig)
		if err != nil {
			return 0, err
		}
		if ok {
			return v.version, nil
		}
	}
	return 0, nil
}

// hasPrefix peeks one byte more at a time while r still matches sig.
func hasPrefix(r *bufio.Reader, sig []byte) (bool, error) {
	for n := 1; n <= len(sig); n++ {
		b, err := r.Peek(n)
		if err != nil {
			return false, truncated(err)
		}
		if !bytes.Equal(b, sig[:n]) {
			return false, nil
		}
	}
	return true, nil
}

// ReadHeader reads one PROXY header of any version from r. It reads at
// most 107 bytes for version 1 and 16 plus the announced length (at most
// 65,535) for version 2, keeping no more than the address block; TLVs are
// skipped (Java keeps ASCII ones as channel attributes; nothing here
// reads them).
func ReadHeader(r *bufio.Reader) (Header, error) {
	v, err := Detect(r)
	switch {
	case err != nil:
		return Header{}, err
	case v == 1:
		return readV1(r)
	case v == 2:
		return readV2(r)
	}
	return Header{}, fmt.Errorf("%w: no PROXY signature", ErrBadHeader)
}

// truncated names an error met inside a header.
func truncated(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: %w", ErrTruncated, err)
}

// readV1 reads "PROXY TCP4|TCP6 src dst sport dport\r\n" or
// "PROXY UNKNOWN...\r\n".
func readV1(r *bufio.Reader) (Header, error) {
	line := make([]byte, 0, maxV1Line)
	for !bytes.HasSuffix(line, []byte("\r\n")) {
		if len(line) == maxV1Line {
			return Header{}, fmt.Errorf("%w: v1 line longer than %d bytes", ErrBadHeader, maxV1Line)
		}
		b, err := r.ReadByte()
		if err != nil {
			return Header{}, truncated(err)
		}
		line = append(line, b)
	}
	return parseV1(string(line[len(sigV1) : len(line)-2]))
}

// parseV1 parses the fields after "PROXY ".
func parseV1(s string) (Header, error) {
	f := strings.Split(s, " ")
	if f[0] == "UNKNOWN" {
		return Header{Version: 1, Local: true}, nil
	}
	if len(f) != 5 || (f[0] != "TCP4" && f[0] != "TCP6") {
		return Header{}, fmt.Errorf("%w: v1 line %q", ErrBadHeader, s)
	}
	src, err1 := v1AddrPort(f[1], f[3], f[0] == "TCP4")
	dst, err2 := v1AddrPort(f[2], f[4], f[0] == "TCP4")
	if err := errors.Join(err1, err2); err != nil {
		return Header{}, err
	}
	return Header{Version: 1, Source: src, Destination: dst}, nil
}

// v1AddrPort parses one address and port of a v1 line; the address must be
// of the line's family and the port a decimal 0..65535 without sign.
func v1AddrPort(addr, port string, v4 bool) (netip.AddrPort, error) {
	ip, err := netip.ParseAddr(addr)
	if err != nil || ip.Is4() != v4 || ip.Zone() != "" {
		return netip.AddrPort{}, fmt.Errorf("%w: v1 address %q", ErrBadHeader, addr)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || port[0] == '+' || (len(port) > 1 && port[0] == '0') {
		return netip.AddrPort{}, fmt.Errorf("%w: v1 port %q", ErrBadHeader, port)
	}
	return netip.AddrPortFrom(ip, uint16(p)), nil
}

// readV2 reads the binary header: signature, version and command, family
// and protocol, length, then the address block and TLVs.
func readV2(r *bufio.Reader) (Header, error) {
	var fixed [v2Fixed]byte
	if _, err := io.ReadFull(r, fixed[:]); err != nil {
		return Header{}, truncated(err)
	}
	verCmd, famProto := fixed[12], fixed[13]
	length := int(binary.BigEndian.Uint16(fixed[14:]))
	if verCmd>>4 != 2 || verCmd&0x0f > 1 {
		return Header{}, fmt.Errorf("%w: v2 version/command 0x%02x", ErrBadHeader, verCmd)
	}
	addrLen, err := v2AddrLen(famProto)
	if err != nil {
		return Header{}, err
	}
	if length < addrLen {
		return Header{}, fmt.Errorf("%w: v2 length %d under the %d address bytes", ErrBadHeader, length, addrLen)
	}
	var block [216]byte
	if _, err := io.ReadFull(r, block[:addrLen]); err != nil {
		return Header{}, truncated(err)
	}
	if _, err := r.Discard(length - addrLen); err != nil { // TLVs
		return Header{}, truncated(err)
	}
	if verCmd&0x0f == 0 || famProto>>4 == 0 || famProto>>4 == 3 {
		return Header{Version: 2, Local: true}, nil // LOCAL, UNSPEC, UNIX: no IP
	}
	return v2Addresses(block[:addrLen]), nil
}

// v2AddrLen is the address block size of a family/protocol byte; only
// stream (and unspecified) protocols are accepted on a stream listener.
func v2AddrLen(famProto byte) (int, error) {
	fam, proto := famProto>>4, famProto&0x0f
	if proto > 1 || (fam != 0 && proto == 0) {
		return 0, fmt.Errorf("%w: v2 family/protocol 0x%02x", ErrBadHeader, famProto)
	}
	switch fam {
	case 0:
		return 0, nil
	case 1:
		return 12, nil
	case 2:
		return 36, nil
	case 3:
		return 216, nil
	}
	return 0, fmt.Errorf("%w: v2 family/protocol 0x%02x", ErrBadHeader, famProto)
}

// v2Addresses decodes an IPv4 (12 bytes) or IPv6 (36 bytes) block:
// source, destination, source port, destination port.
func v2Addresses(b []byte) Header {
	n := (len(b) - 4) / 2
	src, _ := netip.AddrFromSlice(b[:n])
	dst, _ := netip.AddrFromSlice(b[n : 2*n])
	sp := binary.BigEndian.Uint16(b[2*n:])
	dp := binary.BigEndian.Uint16(b[2*n+2:])
	return Header{Version: 2, Source: netip.AddrPortFrom(src, sp), Destination: netip.AddrPortFrom(dst, dp)}
}
