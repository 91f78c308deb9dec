package watchedfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	require.NoError(t, os.WriteFile(ok, []byte("abc"), 0o600))
	b, fi, err := Read(ok, 3)
	require.NoError(t, err)
	require.Equal(t, "abc", string(b))
	require.EqualValues(t, 3, fi.Size())

	_, _, err = Read(ok, 2)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), ok)

	_, _, err = Read(dir, 10)
	require.ErrorIs(t, err, ErrNotRegular)

	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(ok, link))
	b, _, err = Read(link, 10)
	require.NoError(t, err, "links are followed")
	require.Equal(t, "abc", string(b))

	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink(loop, loop))
	_, _, err = Read(loop, 10)
	require.Error(t, err)
}
