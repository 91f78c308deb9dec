package tlsconf

import (
	"slices"
	"time"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// watcher remembers the stamps of the files of the last load (see
// watchedfile.Stamp: inode, size, modification time, mode, change time).
type watcher struct {
	paths  []string
	stamps []watchedfile.Stamp // by index of paths
}

func newWatcher(t *config.TLS) *watcher {
	var paths []string
	for _, p := range []string{t.ServerCertPath, t.ServerKeyPath, t.ServerTrustCertPath,
		t.ClientCertPath, t.ClientKeyPath, t.ClientTrustCertPath} {
		if p != "" && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	w := &watcher{paths: paths}
	w.stamps = w.take()
	return w
}

func (w *watcher) take() []watchedfile.Stamp {
	out := make([]watchedfile.Stamp, len(w.paths))
	for i, p := range w.paths {
		out[i] = watchedfile.StampOf(p)
	}
	return out
}

// changed takes new stamps and reports whether any differs from the last.
// The new stamps are kept either way, so a broken file is reported once,
// and tried again when it changes.
func (w *watcher) changed() bool {
	now := w.take()
	diff := false
	for i := range now {
		diff = diff || !now[i].Same(w.stamps[i])
	}
	w.stamps = now
	return diff
}

// watch checks the files every interval until Close.
func (m *Manager) watch(interval time.Duration) {
	defer close(m.done)
	if interval <= 0 || len(m.w.paths) == 0 {
		<-m.stop
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.check()
		}
	}
}

// check reloads when a file changed; a failed load keeps the previous
// material.
func (m *Manager) check() {
	if !m.w.changed() {
		return
	}
	mat, err := loadMaterial(m.cfg, m.test)
	if err != nil {
		m.failures.Add(1)
		m.log.Error("tls reload failed, keeping the previous certificates", "error", err)
		return
	}
	m.cur.Store(mat)
	m.reloads.Add(1)
	if mat.server != nil && len(mat.server.Certificates) > 0 {
		leaf := mat.server.Certificates[0].Leaf
		m.log.Info("tls certificates reloaded", "serial", leaf.SerialNumber.String(), "not_after", leaf.NotAfter)
		m.warnValidity(leaf.NotBefore, leaf.NotAfter)
		return
	}
	m.log.Info("tls certificates reloaded")
}
