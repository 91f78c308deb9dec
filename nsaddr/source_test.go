package nsaddr

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// serve mounts s as the NameServer does and returns the server's URL.
func serve(t *testing.T, s *Source) string {
	mux := http.NewServeMux()
	mux.Handle(Pattern, s)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// writeList replaces the file atomically, as an operator's tooling (or a
// Kubernetes ConfigMap) does, so the new version is a new file.
func writeList(t *testing.T, path, list string) {
	t.Helper()
	tmp := path + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte(list), 0o644))
	require.NoError(t, os.Rename(tmp, path))
}

func TestLiteralListServedOnJavaPaths(t *testing.T) {
	s, err := New(" 10.0.0.1:9876 ; 10.0.0.2:9876 ", "", testlog.New(t, "nsaddr"))
	require.NoError(t, err)
	url := serve(t, s)
	for _, path := range []string{"/rocketmq/nsaddr", "/rocketmq/nsaddr-unit1?nofix=1", "/rocketmq/nsaddr?a=b"} {
		code, body := get(t, url+path)
		require.Equal(t, http.StatusOK, code, path)
		require.Equal(t, "10.0.0.1:9876;10.0.0.2:9876", body, path)
	}
	code, _ := get(t, url+"/rocketmq/other")
	require.Equal(t, http.StatusNotFound, code)
}

func TestFileReloadedOnChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nsaddr")
	writeList(t, path, "10.0.0.1:9876\n")
	s, err := New("", path, testlog.New(t, "nsaddr"))
	require.NoError(t, err)
	url := serve(t, s)
	_, body := get(t, url+"/rocketmq/nsaddr")
	require.Equal(t, "10.0.0.1:9876", body)

	writeList(t, path, "10.0.0.1:9876;10.0.0.3:9876")
	_, body = get(t, url+"/rocketmq/nsaddr")
	require.Equal(t, "10.0.0.1:9876;10.0.0.3:9876", body)

	// Rewritten in place, same size: the modification time tells.
	require.NoError(t, os.WriteFile(path, []byte("10.0.0.1:9876;10.0.0.4:9876"), 0o644))
	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(path, future, future))
	_, body = get(t, url+"/rocketmq/nsaddr")
	require.Equal(t, "10.0.0.1:9876;10.0.0.4:9876", body)
}

// A broken or missing file never empties the list clients get.
func TestBadFileKeepsLastGoodList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nsaddr")
	writeList(t, path, "10.0.0.1:9876")
	s, err := New("", path, testlog.New(t, "nsaddr"))
	require.NoError(t, err)
	for _, bad := range []string{"", "not-an-address", string(make([]byte, config.NsAddrMaxFileBytes+1))} {
		writeList(t, path, bad)
		require.Equal(t, "10.0.0.1:9876", s.List())
	}
	require.NoError(t, os.Remove(path))
	require.Equal(t, "10.0.0.1:9876", s.List())
	writeList(t, path, "10.0.0.5:9876")
	require.Equal(t, "10.0.0.5:9876", s.List())
}

func TestNewRefusesBadSource(t *testing.T) {
	_, err := New("", "", nil)
	require.ErrorIs(t, err, ErrNoSource)
	_, err = New("10.0.0.1", "", nil)
	require.ErrorIs(t, err, config.ErrInvalid)
	_, err = New("", filepath.Join(t.TempDir(), "missing"), nil)
	require.ErrorContains(t, err, "nsAddrFile")
}
