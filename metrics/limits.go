package metrics

import (
	"net/http"
	"time"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/connlimit"
)

// Defaults of Limits (the metrics* keys of the bounds table).
const (
	DefaultMaxConnections    = 128
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 10 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultMaxHeaderBytes    = 16 << 10
)

// Limits bounds what HTTP clients can hold of an Endpoint; a zero field
// takes its default.
type Limits struct {
	// MaxConnections caps the open connections; one accepted over it (or
	// over Budget) takes the place of the oldest, closed at once, so that
	// idle clients cannot lock out a health probe (metricsMaxConnections).
	MaxConnections int
	// ReadHeaderTimeout bounds the reading of a request's header, from
	// its first byte or the end of the previous request
	// (metricsReadHeaderTimeoutSeconds).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the reading of a whole request
	// (metricsReadTimeoutSeconds).
	ReadTimeout time.Duration
	// WriteTimeout bounds the writing of a response
	// (metricsWriteTimeoutSeconds).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this
	// long (metricsIdleTimeoutSeconds).
	IdleTimeout time.Duration
	// MaxHeaderBytes caps a request's header (metricsMaxHeaderBytes).
	MaxHeaderBytes int
	// Budget is shared with the process's other side listeners; nil
	// means connlimit.Side().
	Budget *connlimit.Budget
}

func (l Limits) withDefaults() Limits {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&l.ReadTimeout, DefaultReadTimeout)
	def(&l.WriteTimeout, DefaultWriteTimeout)
	def(&l.IdleTimeout, DefaultIdleTimeout)
	if l.MaxConnections <= 0 {
		l.MaxConnections = DefaultMaxConnections
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	return l
}

// server returns an http.Server bounded by l.
func (l Limits) server(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: l.ReadHeaderTimeout, ReadTimeout: l.ReadTimeout,
		WriteTimeout: l.WriteTimeout, IdleTimeout: l.IdleTimeout, MaxHeaderBytes: l.MaxHeaderBytes}
}

// LimitsFrom converts the metrics* keys; a zero key takes its default.
func LimitsFrom(c config.MetricsListener) Limits {
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	return Limits{
		MaxConnections:    c.MetricsMaxConnections,
		ReadHeaderTimeout: sec(c.MetricsReadHeaderTimeoutSeconds),
		ReadTimeout:       sec(c.MetricsReadTimeoutSeconds),
		WriteTimeout:      sec(c.MetricsWriteTimeoutSeconds),
		IdleTimeout:       sec(c.MetricsIdleTimeoutSeconds),
		MaxHeaderBytes:    c.MetricsMaxHeaderBytes,
	}
}
