package main

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// TestLeanServerAnswersEveryFrame: the lean limit answers a lookup and a
// registration (a frame with a body) with the canned body and the
// request's opaque, and the reply decodes as a NameServer success.
func TestLeanServerAnswersEveryFrame(t *testing.T) {
	reply, err := newLeanReply([]byte(`{"brokerDatas":[]}`))
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err == nil {
			defer nc.Close()
			_ = leanConn(nc, reply)
		}
	}()
	c, err := dialLookup(ln.Addr().String(), 1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.nc.Close() })
	require.NoError(t, c.roundTrip("BenchTopic-000001"))
	require.NoError(t, c.roundTrip("BenchTopic-000002"), "second frame on the connection")

	reg := remoting.NewRequest(remoting.RegisterBroker, map[string]string{"brokerName": "b"}, make([]byte, 100_000))
	reg.Opaque = -42
	require.NoError(t, c.nc.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = c.nc.Write(remoting.EncodeFrame(nil, reg))
	require.NoError(t, err)
	frame, err := remoting.ReadFrame(c.r, 0, nil)
	require.NoError(t, err)
	cmd, err := remoting.DecodeFrame(frame)
	require.NoError(t, err)
	require.Equal(t, remoting.Success, cmd.Code)
	require.Equal(t, int32(-42), cmd.Opaque)
	require.Equal(t, `{"brokerDatas":[]}`, string(cmd.Body))
}

func TestFindOpaque(t *testing.T) {
	frame := remoting.EncodeFrame(nil, &remoting.Command{Code: 105, Opaque: 123})[4:]
	d, err := findOpaque(frame)
	require.NoError(t, err)
	require.Equal(t, "123", string(d))
	_, err = findOpaque([]byte{0, 0, 0, 2, '{', '}'})
	require.Error(t, err)
	_, err = findOpaque([]byte{0, 0, 0, 9, '{'})
	require.Error(t, err, "header longer than the frame")
}
