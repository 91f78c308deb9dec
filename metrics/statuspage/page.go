package statuspage

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// Pattern is the http.ServeMux pattern of the page: GET (and HEAD) of /
// exactly; another method gets 405 from the mux, another path 404.
const Pattern = "GET /{$}"

const (
	// MaxRows bounds the rows of each table (listeners, brokers, members,
	// broker sets); the page says how many more.
	MaxRows = 200
	// MaxSync bounds the brokers shown of one sync-state set.
	MaxSync = 8
	// MaxText bounds each value shown, in bytes (before escaping).
	MaxText = 128
	// Refresh is how long a rendered page is served again.
	Refresh = time.Second
)

// Page is the status page, an http.Handler. Its sources are set once the
// servers run; until then the page shows what it has.
type Page struct {
	ns    atomic.Pointer[NamesrvSource]
	ctl   atomic.Pointer[ControllerSource]
	clock monotime.Clock

	mu        sync.Mutex // guards the cached rendering and listeners
	body      []byte
	at        monotime.Mono
	listeners []Listener // AddListener's
}

// New returns a Page with no source.
func New() *Page { return &Page{clock: monotime.System} }

// SetNamesrv makes the page show the NameServer src.
func (p *Page) SetNamesrv(src NamesrvSource) {
	p.ns.Store(&src)
	p.expire()
}

// SetController makes the page show the Controller src.
func (p *Page) SetController(src ControllerSource) {
	p.ctl.Store(&src)
	p.expire()
}

// AddListener lists a listener of this node that no source names (the
// standalone Controller's metrics listener).
func (p *Page) AddListener(name, addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, Listener{Name: name, Addr: addr})
	p.body = nil
}

func (p *Page) expire() {
	p.mu.Lock()
	p.body = nil
	p.mu.Unlock()
}

// ServeHTTP renders the page (or serves the rendering of the last
// Refresh).
func (p *Page) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	body := p.rendered()
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	// No script, no frame, no asset: only the inline style runs.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// rendered returns a rendering at most Refresh old. Rendering holds only
// the page's own lock: the sources copy their rows and release theirs.
func (p *Page) rendered() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Mono()
	if p.body != nil && now.Sub(p.at) < Refresh {
		return p.body
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p.view()); err != nil {
		buf.Reset()
		buf.WriteString("<!DOCTYPE html><title>status</title><p>status page failed: ")
		buf.WriteString(escape(err.Error()))
	}
	p.body, p.at = buf.Bytes(), now
	return p.body
}

// view reads the sources into what the template shows. Caller holds mu.
func (p *Page) view() view {
	v := newView()
	if src := p.ns.Load(); src != nil {
		v.addNamesrv((*src).NamesrvStatus(MaxRows))
	}
	if src := p.ctl.Load(); src != nil {
		v.addController((*src).ControllerStatus(MaxRows))
	}
	v.addListeners(p.listeners)
	v.Role = role(v.Namesrv != nil, v.Controller != nil)
	return v
}

func role(ns, ctl bool) string {
	switch {
	case ns && ctl:
		return "NameServer with embedded Controller"
	case ns:
		return "NameServer"
	case ctl:
		return "Controller"
	}
	return "starting"
}
