package watchedfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStampSeesEveryKindOfChange: an edit, a rename over the file, a
// chmod (which leaves the modification time alone) and a removal each
// make another Stamp; an untouched file keeps its Stamp.
func TestStampSeesEveryKindOfChange(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("one"), 0o600))
	s := StampOf(p)
	require.True(t, s.Same(StampOf(p)))
	for _, change := range []func(){
		func() { require.NoError(t, os.WriteFile(p, []byte("three"), 0o600)) },
		func() {
			require.NoError(t, os.WriteFile(p+".new", []byte("three"), 0o600))
			require.NoError(t, os.Rename(p+".new", p))
		},
		func() { require.NoError(t, os.Chmod(p, 0o400)) },
		func() { require.NoError(t, os.Remove(p)) },
	} {
		change()
		next := StampOf(p)
		require.False(t, s.Same(next))
		s = next
	}
	require.True(t, s.Same(Stamp{}), "two missing files are the same")
}
