package proxyproto

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReadHeader: any input either parses or fails with one of the
// package's errors, never panics and never reads past 16+65535 bytes.
func FuzzReadHeader(f *testing.F) {
	f.Add([]byte("PROXY TCP4 192.0.2.1 198.51.100.2 56324 9876\r\n"))
	f.Add([]byte("PROXY TCP6 2001:db8::1 2001:db8::2 1 2\r\n"))
	f.Add([]byte("PROXY UNKNOWN\r\n"))
	f.Add(v2Header(0x21, 0x11, v4Block("192.0.2.1", "198.51.100.2", 1, 2), []byte{1, 0, 1, 'x'}))
	f.Add(v2Header(0x21, 0x21, v6Block("2001:db8::1", "2001:db8::2", 1, 2), nil))
	f.Add(v2Header(0x20, 0x00, nil, nil))
	f.Add([]byte{0, 0, 0, 8, 0, 0, 0, 4})
	f.Fuzz(func(t *testing.T, in []byte) {
		src := bytes.NewReader(in)
		r := bufio.NewReaderSize(src, 16)
		h, err := ReadHeader(r)
		consumed := len(in) - src.Len() - r.Buffered()
		if consumed > 16+65535 {
			t.Fatalf("consumed %d bytes", consumed)
		}
		if err != nil {
			if !errors.Is(err, ErrBadHeader) && !errors.Is(err, ErrTruncated) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if h.Version != 1 && h.Version != 2 {
			t.Fatalf("version %d", h.Version)
		}
		if !h.Local && !h.Source.IsValid() {
			t.Fatalf("no source in %+v", h)
		}
		_, _ = io.Copy(io.Discard, r)
	})
}
