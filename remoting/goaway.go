package remoting

import (
	"context"
	"time"
)

// GoAwayAfterVersion: while going away, requests of peers whose version is
// above it (MQVersion V5_3_1's ordinal, so 5.3.2 and later) are answered
// GO_AWAY, as Java's NettyRemotingAbstract.processRequestCommand does while
// isShuttingDown; older peers (rocketmq-client-go v2 sends 317) are served
// as usual, since they would take GO_AWAY for a failed request.
const GoAwayAfterVersion = 475

// goAwayRemark is Java's remark of the GO_AWAY response.
const goAwayRemark = "please go away"

// goAwayResponse returns the GO_AWAY answer to req while the server is going
// away, nil otherwise or for a peer too old to understand it. Like Java,
// only requests of a registered code get it (others still get
// REQUEST_CODE_NOT_SUPPORTED or the default handler).
func (s *Server) goAwayResponse(c *Conn, req *Command) *Command {
	if !s.goingAway.Load() || req.Version <= GoAwayAfterVersion {
		return nil
	}
	if _, ok := (*s.handlers.Load())[req.Code]; !ok {
		return nil
	}
	c.log.Debug("going away: answering GO_AWAY", "code", req.Code, "opaque", req.Opaque)
	return NewResponse(req, GoAway, goAwayRemark)
}

// goAway is the first phase of a graceful Shutdown (GoAwayPeriod > 0), run
// after the listeners closed: connections are still read and answered
// (GO_AWAY for peers that understand it) until GoAwayPeriod passes, ctx
// ends, or every connection has closed (done), whichever comes first.
// Java's NettyRemotingServer.shutdown sleeps shutdownWaitTimeSeconds
// with its listener still open; ours refuses new connections at once, so
// a client that dials again goes to another NameServer.
func (s *Server) goAway(ctx context.Context, done <-chan struct{}, period time.Duration) {
	s.goingAway.Store(true)
	s.log.Info("going away: new connections refused, peers after 5.3.1 answered GO_AWAY", "period", period)
	t := time.NewTimer(period)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-done:
	}
}

// SetGoAwayPeriod replaces ServerConfig.GoAwayPeriod for the Shutdowns to
// come, so that a period the owner reads from live config at shutdown (as
// Java's NettyRemotingServer.shutdown reads enableShutdownGracefully and
// shutdownWaitTimeSeconds) is the one used; d <= 0 drains at once.
func (s *Server) SetGoAwayPeriod(d time.Duration) { s.goAwayPeriod.Store(int64(max(d, 0))) }
