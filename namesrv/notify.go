package namesrv

import (
	"context"
	"strconv"
	"time"

	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/remoting"
)

// notifyTimeout bounds one NOTIFY_MIN_BROKER_ID_CHANGE send (Java: 300 ms oneway).
const notifyTimeout = 300 * time.Millisecond

// notifyMinBrokerIDChange sends NOTIFY_MIN_BROKER_ID_CHANGE (905) oneway to
// every target broker, each over a short-lived connection, in the background.
func (s *Server) notifyMinBrokerIDChange(n route.MinBrokerIDChange) {
	ext := map[string]string{
		"minBrokerId":   strconv.FormatInt(n.MinBrokerID, 10),
		"minBrokerAddr": n.MinBrokerAddr,
	}
	setIf(ext, "offlineBrokerAddr", n.OfflineBrokerAddr)
	setIf(ext, "haBrokerAddr", n.HABrokerAddr)
	for _, addr := range n.TargetAddrs {
		go s.sendOneway(addr, remoting.NewRequest(remoting.NotifyMinBrokerIDChange, ext, nil))
	}
}

func (s *Server) sendOneway(addr string, req *remoting.Command) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{Logger: s.log.Named("notify")})
	if err != nil {
		s.log.Warn("notify broker failed", "addr", addr, "code", req.Code, "error", err)
		return
	}
	defer c.Close()
	if err := c.InvokeOneway(req); err != nil {
		s.log.Warn("notify broker failed", "addr", addr, "code", req.Code, "error", err)
	}
}
