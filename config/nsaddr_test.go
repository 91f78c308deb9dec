package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNsAddrListParses(t *testing.T) {
	got, err := ParseNsAddrList("nsAddrList", " 10.0.0.1:9876 ;ns-2.example:9876;; \n")
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.1:9876", "ns-2.example:9876"}, got)
	for _, bad := range []string{"", " ; ", "10.0.0.1", "10.0.0.1:0", "10.0.0.1:x", ":9876", "a:1;b"} {
		_, err := ParseNsAddrList("nsAddrList", bad)
		require.ErrorIs(t, err, ErrInvalid, bad)
		require.Contains(t, err.Error(), "nsAddrList", bad)
	}
}

func TestNsAddrKeysLoadAndShow(t *testing.T) {
	list := writeFile(t, "nsaddr", "10.0.0.1:9876;10.0.0.2:9876\n")
	c, err := Load(writeFile(t, "n.properties", "metricsExporterType=PROM\nnsAddrFile="+list+"\n"))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	require.Equal(t, list, c.NsAddrFile)
	require.True(t, c.AddrServiceEnabled())
	require.Contains(t, string(c.Render()), "nsAddrFile="+list+"\n")
	require.False(t, Default().AddrServiceEnabled(), "off by default")
	require.NotContains(t, string(Default().Render()), "nsAddr", "not shown while unset")
}

// Every broken rule is reported at once, naming the key.
func TestNsAddrValidation(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "nsAddrList=10.0.0.1\nnsAddrFile=/nonexistent/nsaddr\n"))
	require.NoError(t, err)
	err = c.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	for _, want := range []string{"both set", `nsAddrList: "10.0.0.1" is not host:port`,
		"nsAddrFile: open /nonexistent/nsaddr", "need metricsExporterType=PROM"} {
		require.Contains(t, err.Error(), want)
	}
}

func TestNsAddrFileBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("10.0.0.1:9876;", NsAddrMaxFileBytes/14+1)), 0o644))
	_, err := ReadNsAddrFile(path)
	require.ErrorIs(t, err, ErrInvalid)
	require.Contains(t, err.Error(), "larger than")
}

// The list redirects every client: no remote update may set either key.
func TestNsAddrKeysNotRemotelyUpdatable(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "configBlackList=\n"))
	require.NoError(t, err)
	for _, body := range []string{"nsAddrList=10.9.9.9:9876", "nsAddrFile=/tmp/x"} {
		_, err := c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, body)
	}
}
