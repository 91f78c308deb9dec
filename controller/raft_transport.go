//go:build embedded_controller

package controller

import (
	"fmt"

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
