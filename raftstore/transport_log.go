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
var strangerLines = map[string]bool{
	"failed to decode incoming command": true,
	"failed to flush response":          true,
}

// transportLogEvery is the rate of each of strangerLines.
const transportLogEvery = time.Second

// transportLogger is raft's transport logger with strangerLines
// rate-limited, each line counting those left out.
type transportLogger struct {
	hclog.Logger
	limits map[string]*lograte.Limiter
}

func newTransportLogger(logger hclog.Logger) hclog.Logger {
	l := &transportLogger{Logger: logger.Named("transport"), limits: map[string]*lograte.Limiter{}}
	for msg := range strangerLines {
		l.limits[msg] = &lograte.Limiter{Every: transportLogEvery}
	}
	return l
}

// Error logs msg, at most once a second when a stranger can cause it.
func (l *transportLogger) Error(msg string, args ...interface{}) {
	if lim := l.limits[msg]; lim != nil {
		ok, n := lim.Allow(time.Now())
		if !ok {
			return
		}
		args = append(args, "suppressed", n)
	}
	l.Logger.Error(msg, args...)
}
