package remoting

import (
	"github.com/rmqgo/nameserver/internal/goldenfile"

	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

var goldenFiles = []string{"namesrv-java-5.3.jsonl", "controller-java-5.3.jsonl"}

// loadGoldenQuiet is goldenfile.Read for fuzz seeds: nil if absent or broken.
func loadGoldenQuiet(name string) []goldenfile.Exchange {
	out, _ := goldenfile.Read(name)
	return out
}

func loadGolden(t testing.TB, name string) []goldenfile.Exchange { return goldenfile.Load(t, name) }

func mustHexQuiet(s string) []byte {
	b, _ := hex.DecodeString(s)
	if len(b) < 4 {
		return make([]byte, 4)
	}
	return b
}

func mustHex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// Every golden frame decodes. Re-encoding a response reproduces Java's
// bytes, extFields order included (the HashMap order emulation); requests
// (written by the golden generator with sorted keys) survive a round trip.
func TestGoldenFrames(t *testing.T) {
	exact := 0
	for _, name := range goldenFiles {
		for _, ex := range loadGolden(t, name) {
			req, err := DecodeFrame(mustHex(t, ex.RequestHex)[4:])
			require.NoError(t, err, ex.Case)
			again, err := DecodeFrame(frameOf(t, req)[4:])
			require.NoError(t, err, ex.Case)
			require.Equal(t, req, again, ex.Case)

			frame := mustHex(t, ex.ResponseHex)
			resp, err := DecodeFrame(frame[4:])
			require.NoError(t, err, ex.Case)
			if sharesBucket(resp.ExtFields) {
				// same-bucket order is Java's insertion order, unknown here
				again, err := DecodeFrame(frameOf(t, resp)[4:])
				require.NoError(t, err, ex.Case)
				require.Equal(t, resp, again, ex.Case)
				continue
			}
			require.Equal(t, string(frame), string(frameOf(t, resp)), ex.Case)
			exact++
		}
	}
	t.Logf("%d golden responses reproduced byte for byte", exact)
	require.Greater(t, exact, 70)
}

// sharesBucket reports whether two keys of m fall in one HashMap bucket.
func sharesBucket(m map[string]string) bool {
	seen := map[uint32]bool{}
	mask := uint32(hashMapCapacity(len(m)) - 1)
	for k := range m {
		b := javaBucket(k, mask)
		if seen[b] {
			return true
		}
		seen[b] = true
	}
	return false
}

// Golden responses are what Java sends: flag 1, JAVA, version 479 or 0.
func TestGoldenResponsesShape(t *testing.T) {
	for _, name := range goldenFiles {
		for _, ex := range loadGolden(t, name) {
			req, err := DecodeFrame(mustHex(t, ex.RequestHex)[4:])
			require.NoError(t, err)
			resp, err := DecodeFrame(mustHex(t, ex.ResponseHex)[4:])
			require.NoError(t, err)
			require.Equal(t, FlagResponse, resp.Flag, ex.Case)
			require.Equal(t, req.Opaque, resp.Opaque, ex.Case)
			require.Equal(t, LanguageJava, resp.Language, ex.Case)
			require.Contains(t, []int32{0, CurrentVersion}, resp.Version, ex.Case)
		}
	}
}
