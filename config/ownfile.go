package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
)

// EmbeddedControllerFile is the name of the embedded controller's own
// properties file, in the directory of the NameServer's -c file. Java's
// ControllerConfig stores its updates in ${user.home}/controller/
// controller.properties (configStorePath); ours sits next to the -c file so
// a node's files stay together. When the -c file itself has that name,
// EmbeddedControllerFileAlt is used instead.
const (
	EmbeddedControllerFile    = "controller.properties"
	EmbeddedControllerFileAlt = "controller-embedded.properties"
)

// embeddedControllerPath returns where the embedded controller of a
// NameServer started with -c path keeps its updates (never path itself).
func embeddedControllerPath(path string) string {
	own := filepath.Join(filepath.Dir(path), EmbeddedControllerFile)
	if sameFile(own, path) {
		own = filepath.Join(filepath.Dir(path), EmbeddedControllerFileAlt)
	}
	return own
}

// loadOwnFile applies the keys of the controller's own file (the
// UPDATE_CONTROLLER_CONFIG results persisted earlier) over the -c file's.
// Keys a remote update may not set (black-listed ones) and keys the
// controller does not know are ignored, so a stale or hand-edited file
// cannot change what the node is. A missing file is not an error.
func (cc *ControllerConfig) loadOwnFile() error {
	props, err := readPropertiesFile(cc.ConfigStorePath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, b := range bindings(cc) {
		known[b.key] = true
	}
	for k := range props {
		if !known[k] || cc.IsBlackListed(k) {
			delete(props, k)
		}
	}
	for _, e := range cc.update(props) {
		cc.loadErrs = append(cc.loadErrs, fmt.Errorf("%s: %w", cc.ConfigStorePath, e))
	}
	return nil
}

// ownFileBody is what Persist writes to the controller's own file: every
// key set by an accepted update (or read back from that file), nothing of
// the -c file, so the two never overwrite each other's keys.
func (cc *ControllerConfig) ownFileBody() []byte {
	return formatLines(maps.Clone(cc.updated), true)
}

// noteUpdated records the keys of props the controller knows.
func (cc *ControllerConfig) noteUpdated(props map[string]string) {
	if cc.updated == nil {
		cc.updated = map[string]string{}
	}
	for _, b := range bindings(cc) {
		if v, ok := props[b.key]; ok {
			cc.updated[b.key] = v
		}
	}
}

// sameFile reports whether two paths name one file (after cleaning, or by
// os.SameFile when both exist).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
