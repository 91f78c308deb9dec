package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/remoting"
)

// Bounds of the lean limit server.
const (
	leanMaxFrame   = 64 << 20 // as the NameServer's default frameMaxLength
	leanReadBuffer = 64 << 10
	opaqueMarker   = 1234567890 // placeholder opaque of the reply template
)

// opaqueKey is what the lean server searches for in a request header.
var opaqueKey = []byte(`"opaque":`)

// leanReply is the canned reply split around its opaque: a JSON response
// header as the NameServer writes it (code 0), and the route body.
type leanReply struct {
	headA, headB []byte // header before and after the opaque digits
	body         []byte
}

// newLeanReply builds the reply template from the real route body.
func newLeanReply(body []byte) (*leanReply, error) {
	resp := remoting.NewResponse(&remoting.Command{Opaque: opaqueMarker}, remoting.Success, "")
	frame, err := remoting.AppendFrame(nil, resp)
	if err != nil {
		return nil, err
	}
	head := frame[8:] // after the length and header-length words
	marker := []byte(strconv.Itoa(opaqueMarker))
	i := bytes.Index(head, marker)
	if i < 0 {
		return nil, errors.New("opaque marker not in the response header")
	}
	return &leanReply{headA: head[:i], headB: head[i+len(marker):], body: body}, nil
}

// append appends the reply frame for opaque (as its decimal bytes).
func (l *leanReply) append(dst, opaque []byte) []byte {
	hl := len(l.headA) + len(opaque) + len(l.headB)
	dst = binary.BigEndian.AppendUint32(dst, uint32(4+hl+len(l.body)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(hl)) // JSON header type 0
	dst = append(append(append(dst, l.headA...), opaque...), l.headB...)
	return append(dst, l.body...)
}

// serveLean runs the lean transport limit: for every frame it reads the
// length, the frame, finds the opaque by a byte search in the header and
// writes the canned reply (the real route body) with that opaque. It
// decodes nothing, so it is the floor of this machine and this load
// generator; it answers registrations the same way. Runs until SIGTERM.
func serveLean(o options, _ io.Writer, log hclog.Logger) error {
	canned, err := os.ReadFile(o.limitBody)
	if err != nil {
		return err
	}
	reply, err := newLeanReply(canned)
	if err != nil {
		return err
	}
	if o.listen == "" {
		return errors.New("-serve-lean needs -listen")
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	return withProfile(o.cpuProfile, func() error {
		go acceptLean(ln, reply, &wg, log)
		waitTerm()
		err := ln.Close()
		wg.Wait()
		return err
	})
}

func acceptLean(ln net.Listener, reply *leanReply, wg *sync.WaitGroup, log hclog.Logger) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			if err := leanConn(nc, reply); !errors.Is(err, io.EOF) {
				log.Debug("lean connection closed", "error", err)
			}
		}()
	}
}

// leanConn answers the frames of one connection until it fails.
func leanConn(nc net.Conn, reply *leanReply) error {
	r := bufio.NewReaderSize(nc, leanReadBuffer)
	var frame, out []byte
	var lenBuf [4]byte
	for {
		if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
			return err
		}
		n := int(binary.BigEndian.Uint32(lenBuf[:]))
		if n < 4 || n > leanMaxFrame {
			return fmt.Errorf("frame length %d", n)
		}
		if cap(frame) < n {
			frame = make([]byte, n)
		}
		frame = frame[:n]
		if _, err := io.ReadFull(r, frame); err != nil {
			return err
		}
		opaque, err := findOpaque(frame)
		if err != nil {
			return err
		}
		out = reply.append(out[:0], opaque)
		if _, err := nc.Write(out); err != nil {
			return err
		}
	}
}

// findOpaque returns the digits of "opaque" in the frame's JSON header.
func findOpaque(frame []byte) ([]byte, error) {
	hl := int(binary.BigEndian.Uint32(frame) & 0xFFFFFF)
	if hl > len(frame)-4 {
		return nil, fmt.Errorf("header length %d", hl)
	}
	head := frame[4 : 4+hl]
	i := bytes.Index(head, opaqueKey)
	if i < 0 {
		return nil, errors.New("no opaque in the header")
	}
	d := head[i+len(opaqueKey):]
	j := 0
	for j < len(d) && (d[j] == '-' || d[j] >= '0' && d[j] <= '9') {
		j++
	}
	if j == 0 {
		return nil, errors.New("opaque without digits")
	}
	return d[:j], nil
}
