package proxyproto_test

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
)

// v2Header builds a version 2 header: signature, ver/cmd, fam/proto,
// length, address block.
func v2Header(verCmd, famProto byte, addrs []byte) []byte {
	b := []byte("\r\n\r\n\x00\r\nQUIT\n")
	b = append(b, verCmd, famProto)
	b = binary.BigEndian.AppendUint16(b, uint16(len(addrs)))
	return append(b, addrs...)
}

func v4Block(src, dst string, sport, dport uint16) []byte {
	s, d := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	return ports(append(s[:], d[:]...), sport, dport)
}

func v6Block(src, dst string, sport, dport uint16) []byte {
	s, d := netip.MustParseAddr(src).As16(), netip.MustParseAddr(dst).As16()
	return ports(append(s[:], d[:]...), sport, dport)
}

func ports(b []byte, sport, dport uint16) []byte {
	b = binary.BigEndian.AppendUint16(b, sport)
	return binary.BigEndian.AppendUint16(b, dport)
}

func asNetErr(err error, ne *net.Error) bool { return errors.As(err, ne) }
