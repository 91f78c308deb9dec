//go:build embedded_controller

package raftstore

import (
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/lograte"
)

// strangerLines are the transport's log lines that anyone who reaches the
// Raft port can cause, one per inbound connection (garbage, a failed TLS
// handshake, a silent connection closed by the first-read timeout, one
// closed to admit a newer one).
var strangerLines = []string{
	"failed to decode incoming command",
	"failed to flush response",
}

// transportLogEvery is the rate of each of strangerLines.
const transportLogEvery = time.Second

// newTransportLogger is raft's transport logger: lograte's, with
// strangerLines at one a second each, each line counting those left out.
// The transport's outbound errors reach raft, which logs them through the
// peer error log (peerlog.go).
func newTransportLogger(logger hclog.Logger) hclog.Logger {
	return lograte.WithLimit(logger.Named("transport"), transportLogEvery, strangerLines...)
}
