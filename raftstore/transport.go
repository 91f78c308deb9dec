//go:build embedded_controller

package raftstore

import (
	"fmt"
	"net"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/lograte"
)

const (
	transportMaxPool = 3
	transportTimeout = 10 * time.Second
)

// NewTCPTransport listens on bindAddr and returns a Raft network
// transport. advertiseAddr is what peers dial; empty means the listener's
// resolved address, so "127.0.0.1:0" yields a usable random port (read it
// from LocalAddr). Failures wrap ErrBind and name the address.
//
// Its log lines, hashicorp/raft's included, are rate-limited (lograte.Wrap):
// anyone who reaches the port causes one per connection of garbage.
//
// Open calls this itself; call it directly only to learn port-0 addresses
// before bootstrapping, then pass the transport in Config.Transport.
// Inbound connections are bounded by Inbound's defaults.
func NewTCPTransport(bindAddr, advertiseAddr string, logger hclog.Logger) (*raft.NetworkTransport, error) {
	return NewBoundedTCPTransport(bindAddr, advertiseAddr, Inbound{}, logger)
}

// NewBoundedTCPTransport is NewTCPTransport with its inbound connections
// bounded by in.
func NewBoundedTCPTransport(bindAddr, advertiseAddr string, in Inbound, logger hclog.Logger) (*raft.NetworkTransport, error) {
	var advertise net.Addr
	if advertiseAddr != "" {
		a, err := net.ResolveTCPAddr("tcp", advertiseAddr)
		if err != nil {
			return nil, fmt.Errorf("%w: advertise address %s: %w", ErrBind, advertiseAddr, err)
		}
		advertise = a
	}
	if logger == nil {
		logger = hclog.Default()
	}
	logger = lograte.Wrap(logger) // raft logs each undecodable inbound connection at ERROR
	l, err := newTCPStreamLayer(bindAddr, advertise, in, logger)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBind, bindAddr, err)
	}
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: l, MaxPool: transportMaxPool, Timeout: transportTimeout,
		Logger: newTransportLogger(logger),
	}), nil
}

// checkSelfAddr rejects a self peer address that differs from the
// transport's, when both are IP:port (hostnames are not resolved here).
func checkSelfAddr(self string, local raft.ServerAddress) error {
	if self == string(local) || !isIPPort(self) || !isIPPort(string(local)) {
		return nil
	}
	return fmt.Errorf("%w: Peers: self RaftAddr %s differs from the transport address %s",
		ErrInvalidConfig, self, local)
}

func isIPPort(s string) bool {
	host, _, err := net.SplitHostPort(s)
	return err == nil && net.ParseIP(host) != nil
}
