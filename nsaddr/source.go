package nsaddr

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// Pattern is the http.ServeMux pattern Handler is mounted on.
const Pattern = "GET /rocketmq/{subgroup}"

// Subgroup is the default subgroup Java clients ask for
// (rocketmq.namesrv.domain.subgroup).
const Subgroup = "nsaddr"

// ErrNoSource is returned by New when neither a list nor a file is given.
var ErrNoSource = errors.New("nsaddr: neither nsAddrList nor nsAddrFile is set")

// Source is the NameServer list served to clients. It is safe for
// concurrent use.
type Source struct {
	path string
	log  hclog.Logger

	mu      sync.Mutex
	list    string            // last good list, "host:port;host:port"
	stamp   watchedfile.Stamp // of the file list was read from
	lastErr string            // the failure logged last; "" after a good read
}

// New returns a Source serving list (nsAddrList) or the file at path
// (nsAddrFile). The list or file must be valid now.
func New(list, path string, log hclog.Logger) (*Source, error) {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	s := &Source{path: path, log: log}
	switch {
	case list != "":
		addrs, err := config.ParseNsAddrList("nsAddrList", list)
		if err != nil {
			return nil, err
		}
		s.list = strings.Join(addrs, ";")
		return s, nil
	case path != "":
		if err := s.reload(); err != nil {
			return nil, fmt.Errorf("nsAddrFile: %w", err)
		}
		return s, nil
	}
	return nil, ErrNoSource
}

// List returns the list to serve, re-reading the file first when it
// changed since it was last read. A failure is logged when it starts or
// changes, not at every request.
func (s *Source) List() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		return s.list
	}
	err := s.reload()
	switch {
	case err == nil:
		s.lastErr = ""
	case err.Error() != s.lastErr: // once per failure, not per request
		s.lastErr = err.Error()
		s.log.Warn("keeping the last good name server list", "file", s.path, "list", s.list, "error", err)
	}
	return s.list
}

// reload reads the file if it changed; on failure the list is kept and a
// version already refused is not read (nor reported) again.
func (s *Source) reload() error {
	stamp, err := watchedfile.StatStamp(s.path)
	if err != nil {
		return err
	}
	if stamp.Same(s.stamp) {
		return nil
	}
	addrs, err := config.ReadNsAddrFile(s.path)
	if err != nil {
		s.stamp = stamp // not read (nor reported) again until it changes
		return err
	}
	list := strings.Join(addrs, ";")
	if list != s.list {
		s.log.Info("name server list loaded", "file", s.path, "list", list)
	}
	s.list, s.stamp = list, stamp
	return nil
}

// ServeHTTP answers GET /rocketmq/nsaddr and /rocketmq/nsaddr-{unit}
// with the list; any other subgroup is 404.
func (s *Source) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sub := r.PathValue("subgroup")
	if sub != Subgroup && !strings.HasPrefix(sub, Subgroup+"-") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(s.List()))
}
