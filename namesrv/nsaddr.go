package namesrv

import (
	"net/http"

	"github.com/rmqgo/nameserver/nsaddr"
)

// addrRoutes returns the address service to mount on the metrics
// listener when nsAddrList or nsAddrFile is set (read at start; neither
// key is remotely updatable), nil otherwise.
func (s *Server) addrRoutes() (map[string]http.Handler, error) {
	c := s.cfg.Load()
	if !c.AddrServiceEnabled() {
		return nil, nil
	}
	src, err := nsaddr.New(c.NsAddrList, c.NsAddrFile, s.log.Named("nsaddr"))
	if err != nil {
		return nil, err
	}
	s.log.Info("address service on the metrics listener", "path", "/rocketmq/"+nsaddr.Subgroup, "list", src.List())
	return map[string]http.Handler{nsaddr.Pattern: src}, nil
}
