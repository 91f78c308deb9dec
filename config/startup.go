package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// NonDefault lists, sorted by key, the "key=value" settings of Render
// that differ from a NameServer started without -c (Java's defaults),
// secrets masked: what the startup log shows of the configuration.
func (c *NamesrvConfig) NonDefault() []string {
	return differing(redactSecrets(c.renderMap()), redactSecrets(Default().renderMap()))
}

// NonDefault lists, sorted by key, the "key=value" settings of Render
// that differ from a controller's defaults, secrets masked.
func (cc *ControllerConfig) NonDefault() []string {
	d := controllerDefaults(19876)
	d.finish()
	return differing(redactSecrets(cc.renderMap()), redactSecrets(d.renderMap()))
}

func differing(m, base map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if v, ok := base[k]; !ok || v != m[k] {
			out = append(out, k+"="+m[k])
		}
	}
	return out
}

// CheckStatePaths reports whether the server could create the
// kvConfigPath store, naming the key: the nearest existing directory on
// its path must be a writable directory (a temporary file is created and
// removed there; no directory is made). The server's start makes this
// check by opening the store; the check mode makes it without.
func (c *NamesrvConfig) CheckStatePaths() error {
	dir := nearestExisting(filepath.Dir(c.KVConfigPath))
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err == nil {
		err = errors.Join(f.Close(), os.Remove(f.Name()))
	}
	if err != nil {
		return fmt.Errorf("%w: kvConfigPath (%s) cannot be created: %w", ErrInvalid, c.KVConfigPath, err)
	}
	return nil
}

// nearestExisting is dir or its closest ancestor that exists.
func nearestExisting(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}
