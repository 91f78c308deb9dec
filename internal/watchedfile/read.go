package watchedfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Sentinel errors of Read, wrapped with the path.
var (
	// ErrNotRegular: the path names a directory, pipe, device or socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the bound.
	ErrTooLarge = errors.New("file too large")
)

// Open opens the regular file at path (symbolic links followed) for
// reading without waiting for anything, and returns it with its FileInfo;
// an error names path: the open's, or ErrNotRegular.
func Open(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	if err != nil {
		_ = f.Close()
		return nil, fi, err
	}
	return f, fi, nil
}

// Read returns the content of the regular file at path and its FileInfo
// (nil when it could not be opened), or an error naming path: Open's, or
// ErrTooLarge when it holds more than limit bytes.
func Read(path string, limit int64) ([]byte, os.FileInfo, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fi, fmt.Errorf("%s: %w: %d bytes, larger than %d", path, ErrTooLarge, fi.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fi, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fi, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrTooLarge, limit)
	}
	return b, fi, nil
}
