package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// newFileMode is the mode a new config file is created with before the
// umask applies: Java's MixAll.string2File writes through a FileWriter,
// so a new file is 0666 less the umask (0644 under the usual 022).
const newFileMode fs.FileMode = 0o666

// createTempFor creates a temporary file beside target, to be renamed over
// it, with the mode Java's MixAll.string2File leaves target with: target's
// own mode when it exists (Java rewrites it in place), otherwise
// newFileMode less the umask. os.CreateTemp would make it 0600.
func createTempFor(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	var f *os.File
	var err error
	for i := range 100 {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatInt(time.Now().UnixNano()+int64(i), 36))
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, newFileMode)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if st, serr := os.Stat(target); serr == nil {
		if err := f.Chmod(st.Mode().Perm()); err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			return nil, err
		}
	}
	return f, nil
}

// narrowMode takes from f's mode every permission the file at source
// lacks.
func narrowMode(f *os.File, source string) error {
	src, err := os.Stat(source)
	if err != nil {
		return err
	}
	own, err := f.Stat()
	if err != nil {
		return err
	}
	if want := own.Mode().Perm() & src.Mode().Perm(); want != own.Mode().Perm() {
		return f.Chmod(want)
	}
	return nil
}
