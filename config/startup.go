package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

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
