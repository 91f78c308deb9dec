package watchedfile

import "os"

// Stamp identifies one version of a file, taken with os.Stat (symbolic
// links followed). A replaced file (renamed over, a Kubernetes secret's
// symlink swapped) is another inode, an edited one another size or
// modification time, one whose permissions were fixed after a failed
// read another mode or change time (chmod and chown leave the
// modification time alone). The zero Stamp is a missing or unreadable
// file.
type Stamp struct {
	info os.FileInfo // nil: missing or unreadable
}

// StampOf takes path's Stamp now (the zero Stamp when it cannot be
// stat'ed).
func StampOf(path string) Stamp {
	s, _ := StatStamp(path)
	return s
}

// StampOfInfo is the Stamp of fi (as Read returns it; nil: the zero
// Stamp).
func StampOfInfo(fi os.FileInfo) Stamp { return Stamp{info: fi} }

// StatStamp takes path's Stamp now, or returns os.Stat's error.
func StatStamp(path string) (Stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{info: fi}, nil
}

// Same reports whether a and b are the same version of a file (two
// missing files are).
func (a Stamp) Same(b Stamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil
	}
	return os.SameFile(a.info, b.info) && a.info.Size() == b.info.Size() &&
		a.info.ModTime().Equal(b.info.ModTime()) && a.info.Mode() == b.info.Mode() &&
		changeTime(a.info) == changeTime(b.info)
}
