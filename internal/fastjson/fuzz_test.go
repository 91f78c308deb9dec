package fastjson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzFlavour checks the whole flavour against encoding/json: escaped
// strings and numeric-keyed objects read back as written (invalid UTF-8
// as U+FFFD) by encoding/json and by StringReader, standard JSON passes
// QuoteNumericKeys unchanged, Pretty only adds white space, and
// StringReader never panics or runs past its input.
func FuzzFlavour(f *testing.F) {
	f.Add("a\"b\\c/d\x01\u2028é😀\x7f\xff", int64(-7), []byte(`{"a":[1,{"b":"{1:2}"}],"c":{}}`))
	f.Add("", int64(0), []byte(`[]`))
	f.Add("\u0085", int64(2), []byte(`"a\u00e9\ud83d\ude00\n\/"`))
	f.Add("", int64(3), []byte("\"\xff\""))
	f.Add("x", int64(1<<62), []byte(`{"s":"\\\"{1:2}","k":-1.5e3}`))
	f.Fuzz(func(t *testing.T, s string, key int64, doc []byte) {
		for _, fl := range []Flavour{Default, Standard} {
			checkStringAgrees(t, s, key, fl)
		}
		checkReaderTotal(t, doc)
		if !json.Valid(doc) {
			QuoteNumericKeys(doc) // must not panic
			Pretty(doc)
			return
		}
		require.Equal(t, string(doc), string(QuoteNumericKeys(doc)), "standard JSON is copied unchanged")
		requireSameCompact(t, doc, Pretty(doc))
	})
}

// checkStringAgrees writes {key:s} in flavour fl and reads it back with
// encoding/json after QuoteNumericKeys.
func checkStringAgrees(t *testing.T, s string, key int64, fl Flavour) {
	obj := append(AppendNumberKey([]byte{'{'}, key, fl), ' ')
	obj = append(AppendString(obj, s, fl), '}')
	quoted := QuoteNumericKeys(obj)
	var got map[string]string
	require.NoError(t, json.Unmarshal(quoted, &got), "%q", quoted)
	want := map[string]string{string(AppendLong(nil, key, Default)): string([]rune(s))}
	require.Equal(t, want, got, "%q", obj)
	requireSameCompact(t, obj, Pretty(obj))
	var r StringReader
	text, next, err := r.Read(AppendString(nil, s, fl), 0)
	require.NoError(t, err)
	require.Equal(t, string([]rune(s)), string(text))
	require.Equal(t, len(AppendString(nil, s, fl)), next)
}

// checkReaderTotal reads doc as a literal when it opens with a quote; a
// valid JSON string must agree with encoding/json, which reads an invalid
// UTF-8 byte as U+FFFD where StringReader keeps it.
func checkReaderTotal(t *testing.T, doc []byte) {
	if len(doc) == 0 || (doc[0] != '"' && doc[0] != '\'') {
		return
	}
	var r StringReader
	text, next, err := r.Read(doc, 0)
	require.LessOrEqual(t, next, len(doc))
	var want string
	if doc[0] == '"' && json.Unmarshal(doc, &want) == nil {
		require.NoError(t, err, "%q", doc)
		require.Equal(t, len(bytes.TrimRight(doc, " \t\n\r")), next, "%q", doc)
		require.Equal(t, want, string([]rune(string(text))), "%q", doc)
	}
}

func requireSameCompact(t *testing.T, a, b []byte) {
	var ca, cb bytes.Buffer
	require.NoError(t, json.Compact(&ca, QuoteNumericKeys(a)))
	require.NoError(t, json.Compact(&cb, QuoteNumericKeys(b)), "%q", b)
	require.Equal(t, ca.String(), cb.String())
}
