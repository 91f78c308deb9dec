package namesrv

import (
	"sync"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// configSource gives the live configuration; request handlers read it at use
// time, so updates take effect for the keys Java reads live.
type configSource interface {
	Load() *config.NamesrvConfig
}

// configStore is a configSource that can be replaced.
type configStore interface {
	configSource
	Store(c *config.NamesrvConfig)
}

// configProcessor answers GET_NAMESRV_CONFIG and UPDATE_NAMESRV_CONFIG.
type configProcessor struct {
	mu  sync.Mutex // serialises updates and their persistence
	cfg configStore
}

func (p *configProcessor) get(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	resp := remoting.NewResponse(req, remoting.Success, "")
	if b := p.cfg.Load().Render(); len(b) > 0 {
		resp.Body = b
	}
	return resp, nil
}

// update applies a properties text. Black-listed keys (every path among
// them) are refused before anything changes; the result is persisted to
// configStorePath before the new configuration is published.
func (p *configProcessor) update(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if len(req.Body) == 0 {
		return remoting.NewResponse(req, remoting.Success, ""), nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	next, err := p.cfg.Load().ApplyUpdate(req.Body)
	if err != nil {
		return errorResponse(req, err), nil
	}
	if err := next.Persist(); err != nil {
		return errorResponse(req, err), nil
	}
	p.cfg.Store(next)
	return remoting.NewResponse(req, remoting.Success, ""), nil
}
