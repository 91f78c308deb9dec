package config

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// TLSMaxFileBytes bounds every file a TLS key names (certificates, keys,
// trust bundles, tls.config.file): a system CA bundle is a few hundred KiB.
const TLSMaxFileBytes = 4 << 20

// errNotRegular and errTooLarge say why ReadTLSFile refused a file.
var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = fmt.Errorf("larger than %d bytes", TLSMaxFileBytes)
)

// ReadTLSFile reads a file named by a TLS key: a regular file (a symlink
// to one, as Kubernetes mounts secrets, is fine) of at most
// TLSMaxFileBytes. A FIFO or device is refused before it is opened (an
// open could block, a read never end), a larger file after
// TLSMaxFileBytes+1 bytes. Errors carry the path; callers add the key.
func ReadTLSFile(path string) ([]byte, error) {
	if err := checkTLSFile(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, TLSMaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > TLSMaxFileBytes {
		return nil, fmt.Errorf("%s: %w", path, errTooLarge)
	}
	return data, nil
}

// checkTLSFile reports a missing or unreadable path, or one that is not
// a regular file.
func checkTLSFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", path, errNotRegular, fi.Mode().Type())
	}
	return nil
}
