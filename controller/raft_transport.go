//go:build embedded_controller

package controller

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/certreload"
	"github.com/rmqgo/nameserver/raftstore"
)

// newRaftTransport binds the Raft transport on the self entry of
// controllerRaftPeers, its inbound connections capped by
// controllerRaftMaxInboundConnections: plain TCP, or mutual TLS with the
// controllerRaftTls* files when controllerRaftTlsEnable=true (the files
// are reloaded when they change; see certreload).
func newRaftTransport(cfg *config.ControllerConfig, logger hclog.Logger) (raft.Transport, error) {
	addr := cfg.SelfRaftAddr()
	in := raftstore.Inbound{MaxConns: cfg.ControllerRaftMaxInboundConnections}
	if !cfg.ControllerRaftTlsEnable {
		t, err := raftstore.NewBoundedTCPTransport(addr, "", in, logger)
		if err != nil {
			return nil, fmt.Errorf("controller: cannot listen on raft address %s: %w", addr, err)
		}
		return t, nil
	}
	rl, err := certreload.New(cfg.ControllerRaftTlsCertPath, cfg.ControllerRaftTlsKeyPath,
		cfg.ControllerRaftTlsTrustCertPath, logger.Named("raft-tls"))
	if err != nil {
		return nil, fmt.Errorf("controller: controllerRaftTls* files: %w", err)
	}
	t, err := raftstore.NewTLSTransport(addr, "", rl.ServerConfig(), rl.ClientConfig(), in, logger)
	if err != nil {
		return nil, fmt.Errorf("controller: cannot listen on raft address %s: %w", addr, err)
	}
	logger.Info("raft transport uses mutual tls", "addr", addr, "cert", cfg.ControllerRaftTlsCertPath,
		"trust", cfg.ControllerRaftTlsTrustCertPath)
	return t, nil
}

// warnOpenRaftPort warns, once from New, when aclEnable=true while the Raft
// transport listens in plaintext beyond loopback: ACL checks remoting
// requests only, and hashicorp/raft takes RPCs (votes, entries, snapshots)
// from anyone who reaches its port.
func warnOpenRaftPort(cfg *config.ControllerConfig, logger hclog.Logger) {
	addr := cfg.SelfRaftAddr()
	if !cfg.AclEnable || cfg.ControllerRaftTlsEnable || !beyondLoopback(addr) {
		return
	}
	logger.Warn("aclEnable=true does not protect the raft port: anyone who reaches it can send raft rpcs "+
		"and change the controller state; set controllerRaftTlsEnable=true with controllerRaftTlsCertPath, "+
		"controllerRaftTlsKeyPath and controllerRaftTlsTrustCertPath, or keep the raft port on an isolated network",
		"raft_addr", addr)
}

// beyondLoopback reports whether a listener on addr (host:port) can be
// reached from other hosts: true unless the host is a loopback IP or
// "localhost" (a host name that resolves elsewhere counts as beyond).
func beyondLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err != nil || !ip.IsLoopback()
}
