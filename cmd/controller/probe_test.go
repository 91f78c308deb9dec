package main

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// -probe from a host reaching the controllers through published ports:
// the leader is asked at the probed address of the node saying it leads,
// not at the name it advertises (which does not resolve there).
func TestProbeAsksLeaderAtProbedAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := remoting.NewServer(remoting.ServerConfig{})
	srv.Register(remoting.ControllerGetNextBrokerID, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		return remoting.NewResponse(req, remoting.Success, ""), nil
	})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	states := []nodeState{
		{addr: "127.0.0.1:1", ext: map[string]string{"isLeader": "false", "controllerLeaderAddress": "n0.invalid:9878"}},
		{addr: ln.Addr().String(), ext: map[string]string{"isLeader": "true", "controllerLeaderAddress": "n0.invalid:9878"}},
	}
	leader, ready := readyLeader(states)
	require.Equal(t, ln.Addr().String(), leader)
	require.True(t, ready)
}

// TestProbeIgnoresServerTLSKeys: -probe is a client; tls.server.* keys
// naming files it cannot read (a server's, on the same host) must not
// stop it. A broken tls.client.* key still does.
func TestProbeIgnoresServerTLSKeys(t *testing.T) {
	dir := t.TempDir()
	props := map[string]string{"tls.enable": "true", "tls.server.mode": "enforcing",
		"tls.server.certPath": filepath.Join(dir, "absent.crt"), "tls.server.keyPath": filepath.Join(dir, "absent.key"),
		"tls.server.authClient": "maybe"}
	c, err := probeClientTLS(props)
	require.NoError(t, err)
	require.NotNil(t, c)
	props["tls.client.authServer"] = "maybe"
	_, err = probeClientTLS(props)
	require.ErrorContains(t, err, "tls.client.authServer")
}
