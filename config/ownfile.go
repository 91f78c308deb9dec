package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
)

// EmbeddedControllerFileSuffix names the embedded controller's own
// properties file: the -c file's name without ".properties", plus this
// suffix, in the -c file's directory (n0.properties keeps its controller's
// updates in n0.controller.properties). Java's ControllerConfig stores its
// updates in ${user.home}/controller/controller.properties
// (configStorePath), one file for every node of a host; ours is named after
// the -c file, so nodes whose -c files share a directory never share it,
// and it is never the -c file itself.
const EmbeddedControllerFileSuffix = ".controller.properties"

// Earlier versions named the own file controller.properties in the -c
// file's directory (controller-embedded.properties when the -c file had
// that name), shared by every node of that directory. While a node has no
// own file yet, Load reads that one instead, once; the next accepted update
// writes the node's own file.
const (
	legacyControllerFile    = "controller.properties"
	legacyControllerFileAlt = "controller-embedded.properties"
)

// embeddedControllerPath returns where the embedded controller of a
// NameServer started with -c path keeps its updates (never path itself).
func embeddedControllerPath(path string) string {
	stem := strings.TrimSuffix(filepath.Base(path), ".properties")
	return filepath.Join(filepath.Dir(path), stem+EmbeddedControllerFileSuffix)
}

// legacyControllerPath is the own file's name before
// EmbeddedControllerFileSuffix ("" if that would be the -c file).
func legacyControllerPath(path string) string {
	legacy := filepath.Join(filepath.Dir(path), legacyControllerFile)
	if sameFile(legacy, path) {
		legacy = filepath.Join(filepath.Dir(path), legacyControllerFileAlt)
	}
	if sameFile(legacy, path) {
		return ""
	}
	return legacy
}

// loadOwnFile applies the keys of the controller's own file (the
// UPDATE_CONTROLLER_CONFIG results persisted earlier) over the -c file's;
// while it does not exist, those of fallback (the legacy name, "" for
// none). Keys a remote update may not set (black-listed ones) and keys the
// controller does not know are ignored, so a stale or hand-edited file
// cannot change what the node is. A missing file is not an error.
func (cc *ControllerConfig) loadOwnFile(fallback string) error {
	from := cc.ConfigStorePath
	props, err := readPropertiesFile(from)
	if errors.Is(err, fs.ErrNotExist) && fallback != "" {
		from = fallback
		props, err = readPropertiesFile(from)
	}
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
		cc.loadErrs = append(cc.loadErrs, fmt.Errorf("%s: %w", from, e))
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
