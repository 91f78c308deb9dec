package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A typo key and a line with no separator are listed, each once, with the
// nearest known key; known keys (NameServer, controller, TLS, rendered
// names) are not.
func TestUnreadNamesTyposAndBareLines(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", strings.Join([]string{
		"listenPrt=19877",
		"this line is not a property",
		"# a comment without separator",
		"listenPort 9877",
		"tls.server.mode=permissive",
		"controllerDLegerSelfId=n0",
		"isProcessReadEvent=true",
		"long=a\\",
		"  continued without separator",
		"zzzzzzzzzzzzzzzzzzzzzzzzzzzz=1",
	}, "\n")))
	require.NoError(t, err)
	require.Equal(t, 9877, c.ListenPort)
	un := c.Unread()
	require.Len(t, un, 4, "%v", un)
	byKey := map[string]Unread{}
	for _, u := range un {
		byKey[u.Key] = u
	}
	require.Equal(t, "listenPort", byKey["listenPrt"].Nearest)
	require.Equal(t, "unknown key listenPrt is ignored (nearest known key: listenPort)", byKey["listenPrt"].String())
	require.Equal(t, 2, byKey["this"].Line)
	require.Contains(t, byKey["this"].String(), `line 2 ("this line is not a property") is not a key=value property`)
	require.Contains(t, byKey, "long")
	require.Empty(t, byKey["zzzzzzzzzzzzzzzzzzzzzzzzzzzz"].Nearest)
	require.Equal(t, []any{"key", "listenPrt", "nearest", "listenPort"}, byKey["listenPrt"].LogArgs())
}

// A standalone controller's file is checked against its own keys.
func TestControllerUnreadNamesTypos(t *testing.T) {
	cc, err := LoadController(writeFile(t, "c.properties",
		"controllerDLegerPeers=n0-127.0.0.1:19876\ncontrollerRaftPeers=n0-127.0.0.1:19877\n"+
			"controllerDLegerSelfId=n0\ncontrollerStorePath="+t.TempDir()+"\nelectMasterMaxRetryCont=3\n"))
	require.NoError(t, err)
	un := cc.Unread()
	require.Len(t, un, 1)
	require.Equal(t, "electMasterMaxRetryCount", un[0].Nearest)
}

// Java's OTLP_GRPC and LOG exporters are refused, naming the key and what
// to use instead, rather than accepted with nothing exported.
func TestMetricsExporterJavaOnlyRefused(t *testing.T) {
	for _, v := range []string{"OTLP_GRPC", "LOG"} {
		c := Default()
		c.MetricsExporterType = v
		err := c.Validate()
		require.ErrorIs(t, err, ErrInvalid)
		require.Contains(t, err.Error(), "metricsExporterType ("+v+") is a Java exporter this server does not implement")
	}
	c := Default()
	c.MetricsExporterType = "DISABLE"
	require.NoError(t, c.Validate())
}

func TestEditDistance(t *testing.T) {
	require.Equal(t, 0, editDistance("", ""))
	require.Equal(t, 3, editDistance("", "abc"))
	require.Equal(t, 1, editDistance("listenprt", "listenport"))
	require.Equal(t, 3, editDistance("kitten", "sitting"))
}

// A file of many unknown keys gives at most maxUnread entries, the last
// counting the rest, and a huge separator-less line is cut.
func TestUnreadBounded(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "unknownKey%05d=1\n", i)
	}
	b.WriteString(strings.Repeat("x", 1<<20) + " y\n")
	c, err := Load(writeFile(t, "n.properties", b.String()))
	require.NoError(t, err)
	un := c.Unread()
	require.Len(t, un, maxUnread+1)
	require.Equal(t, 5001-maxUnread, un[maxUnread].More)
	require.Equal(t, fmt.Sprintf("%d more keys no setting reads", 5001-maxUnread), un[maxUnread].String())
	for _, u := range un {
		require.LessOrEqual(t, len(u.Text), maxUnreadText+3)
	}
}
