package tlsconf

import (
	"os"
	"slices"
	"time"

	"github.com/rmqgo/nameserver/config"
)

// stamp identifies one version of a file: a replaced file (renamed over,
// a Kubernetes secret's symlink swapped) is another inode, an edited one
// another size or modification time, one whose permissions were fixed
// after a failed reload another mode or change time (chmod and chown
// leave the modification time alone).
type stamp struct {
	path string
	info os.FileInfo // nil: missing or unreadable
}

func (a stamp) same(b stamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil
	}
	return os.SameFile(a.info, b.info) && a.info.Size() == b.info.Size() && a.info.ModTime().Equal(b.info.ModTime()) &&
		a.info.Mode() == b.info.Mode() && changeTime(a.info) == changeTime(b.info)
}

// watcher remembers the stamps of the files of the last load.
type watcher struct {
	paths  []string
	stamps []stamp
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

func (w *watcher) take() []stamp {
	out := make([]stamp, len(w.paths))
	for i, p := range w.paths {
		out[i] = stamp{path: p}
		if fi, err := os.Stat(p); err == nil {
			out[i].info = fi
		}
	}
	return out
}

// changed takes new stamps and reports whether any differs from the last.
// The new stamps are kept either way, so a broken file is reported once,
// and tried again when it changes.
func (w *watcher) changed() bool {
	now := w.take()
	diff := slices.ContainsFunc(now, func(s stamp) bool {
		i := slices.IndexFunc(w.stamps, func(o stamp) bool { return o.path == s.path })
		return i < 0 || !w.stamps[i].same(s)
	})
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
