package remoting

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// seedFrames adds golden frames (without length) and edge cases to f.
func seedFrames(f *testing.F) [][]byte {
	var frames [][]byte
	for _, name := range goldenFiles {
		for _, ex := range loadGoldenQuiet(name) {
			frames = append(frames, mustHexQuiet(ex.RequestHex)[4:], mustHexQuiet(ex.ResponseHex)[4:])
		}
	}
	for _, c := range sampleCommands() {
		b, _ := AppendFrame(nil, c)
		frames = append(frames, b[4:])
	}
	frames = append(frames, nil, []byte{0, 0, 0, 0}, []byte{1, 0, 0, 0}, []byte{0, 0, 0, 2, '{', '}'},
		[]byte{0xff, 0xff, 0xff, 0xff}, []byte{1, 0, 0, 21, 0, 1, 9, 1, 61, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	return frames
}

// sampleCommands are hand-picked commands for seeds and round trips.
func sampleCommands() []*Command {
	return []*Command{
		NewRequest(GetRouteinfoByTopic, map[string]string{"topic": "T"}, nil),
		{Code: 105, Language: "GO", Version: 317, Opaque: 1, ExtFields: map[string]string{}},
		{Code: 17, Flag: 1, Remark: "a\"b\\\n\u2028\x00\u0085中", Body: []byte{1, 2, 3}},
		{Code: 3, Opaque: -1, ExtFields: map[string]string{"k": "v", "x": "\x7f"}, SerializeType: SerializeRocketMQ, Language: "GO"},
	}
}

// normalized is what c becomes after one trip through its header codec.
func normalized(c *Command) *Command {
	n := *c
	if len(n.Body) == 0 {
		n.Body = nil
	}
	if n.SerializeType != SerializeRocketMQ {
		return javaStrings(&n)
	}
	n.Code, n.Version = int32(int16(n.Code)), int32(int16(n.Version))
	if _, ok := LanguageCode(n.Language); !ok {
		n.Language = "OTHER"
	}
	var ext map[string]string
	for k, v := range n.ExtFields {
		if k != "" && v != "" {
			if ext == nil {
				ext = map[string]string{}
			}
			ext[k] = v
		}
	}
	n.ExtFields = ext
	return &n
}

// javaStrings is what a JSON header's strings become: fastjson writes Java
// strings, so each invalid UTF-8 byte turns into U+FFFD. Nil when two
// extFields keys become one, a trip that cannot be compared.
func javaStrings(n *Command) *Command {
	n.Language, n.Remark = string([]rune(n.Language)), string([]rune(n.Remark))
	if n.ExtFields == nil {
		return n
	}
	ext := make(map[string]string, len(n.ExtFields))
	for k, v := range n.ExtFields {
		ext[string([]rune(k))] = string([]rune(v))
	}
	if len(ext) != len(n.ExtFields) {
		return nil
	}
	n.ExtFields = ext
	return n
}

// checkRoundTrip asserts Decode(Encode(c)) == normalized(c).
func checkRoundTrip(t testing.TB, c *Command) {
	b, err := AppendFrame(nil, c)
	require.NoError(t, err)
	got, err := DecodeFrame(b[4:])
	require.NoError(t, err, "%s", b)
	if want := normalized(c); want != nil {
		require.Equal(t, want, got)
	}
}

func FuzzDecodeFrame(f *testing.F) {
	for _, fr := range seedFrames(f) {
		f.Add(fr)
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		c, err := DecodeFrame(frame)
		if err != nil {
			return
		}
		checkRoundTrip(t, c)
	})
}

func FuzzJSONHeader(f *testing.F) {
	for _, fr := range seedFrames(f) {
		if len(fr) >= 4 && fr[0] == 0 {
			f.Add(fr[4:])
		}
	}
	for _, s := range []string{`{}`, `{"code":1,"x":[{"a":null}],"extFields":{"n":1,"b":true}}`,
		`{'code':'5','remark':'\x41\v\u00e9'}`, `{"language":9}`, `{"remark":"\ud83d\ude00\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, header []byte) {
		var c Command
		if decodeJSONHeader(header, &c) != nil {
			return
		}
		checkRoundTrip(t, &c)
		checkStandardJSON(t, &c)
	})
}

// checkStandardJSON parses our header with encoding/json (valid UTF-8 only,
// which encoding/json would otherwise rewrite).
func checkStandardJSON(t *testing.T, c *Command) {
	all := c.Remark + c.Language
	for k, v := range c.ExtFields {
		all += k + v
	}
	if !utf8.ValidString(all) {
		return
	}
	var std struct {
		Code      int32
		Language  string
		Remark    string
		ExtFields map[string]string
	}
	require.NoError(t, json.Unmarshal(appendJSONHeader(nil, c), &std))
	require.Equal(t, c.Code, std.Code)
	require.Equal(t, c.Language, std.Language)
	require.Equal(t, c.Remark, std.Remark)
	require.Equal(t, c.ExtFields, std.ExtFields)
}

func FuzzRocketMQHeader(f *testing.F) {
	for _, fr := range seedFrames(f) {
		if len(fr) >= 4 && fr[0] == 1 {
			f.Add(fr[4:])
		}
	}
	f.Add(make([]byte, 21))
	f.Fuzz(func(t *testing.T, header []byte) {
		c := Command{SerializeType: SerializeRocketMQ}
		if decodeRocketMQHeader(header, &c) != nil {
			return
		}
		checkRoundTrip(t, &c)
	})
}

// Decode(Encode(c)) == c for random commands of both header types.
func TestRoundTripProperty(t *testing.T) {
	for _, c := range sampleCommands() {
		checkRoundTrip(t, c)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		checkRoundTrip(t, randomCommand(rng))
	}
}

func randomCommand(rng *rand.Rand) *Command {
	c := &Command{
		Code: rng.Int32() - rng.Int32(), Version: rng.Int32N(700), Opaque: rng.Int32(), Flag: rng.Int32N(4),
		Language: []string{"", "JAVA", "GO", "RUST", "NODE_JS", "WEIRD"}[rng.IntN(6)],
		Remark:   randomString(rng), SerializeType: SerializeType(rng.IntN(2)),
	}
	if rng.IntN(3) > 0 {
		c.ExtFields = map[string]string{}
		for range rng.IntN(20) {
			c.ExtFields[randomString(rng)] = randomString(rng)
		}
	}
	if rng.IntN(2) == 0 {
		c.Body = []byte(randomString(rng))
	}
	return c
}

// randomString mixes ASCII, controls, escapes and multi-byte runes.
func randomString(rng *rand.Rand) string {
	alphabet := []string{"a", "Z", "0", " ", "\"", "\\", "/", "\n", "\x00", "\x1f", "\x7f", "\u0085", "\u00a0",
		"é", "中", "😀", "\u2028", "\u2029", "'", "<", "\xc2", "\xff"}
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}
