package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzRegisterDataVersionStamp checks DataVersionUnstamped against an
// independent reading of strict JSON bodies: a body is stamped iff its last
// wrapper (the last topicConfigSerializeWrapper, or the body itself before
// version 37) is an object whose last dataVersion is an object with a
// timestamp member that is not a null long (null, "", "null", "NULL").
func FuzzRegisterDataVersionStamp(f *testing.F) {
	for _, s := range []string{
		`{"topicConfigSerializeWrapper":{"dataVersion":{"counter":1,"timestamp":2}}}`,
		`{"topicConfigSerializeWrapper":{"dataVersion":{"timestamp":null}}}`,
		`{"topicConfigSerializeWrapper":{"dataVersion":{"timestamp":"NULL","timestamp":""}}}`,
		`{"topicConfigSerializeWrapper":{"dataVersion":{"timestamp":3},"dataVersion":{}}}`,
		`{"topicConfigSerializeWrapper":{"dataVersion":{"timestamp":3}},"topicConfigSerializeWrapper":{}}`,
		`{"topicConfigSerializeWrapper":null}`, `{"dataVersion":{"timestamp":"7"}}`, `{}`,
		`{"topiCConfigSeriAliZeWrApper":{"dAtAVersion":{"timestAmp":"0"}}}`,
		`{"topic_config_serialize_wrapper":{"data-version":{"timestamp":1}}}`,
	} {
		f.Add([]byte(s), int32(479))
		f.Add([]byte(s), int32(36))
	}
	f.Fuzz(func(t *testing.T, body []byte, version int32) {
		if !json.Valid(body) || len(body) == 0 || version < 0 {
			return
		}
		rb, err := DecodeRegisterBody(body, version, false)
		if err != nil {
			return
		}
		stamped, err := stampOracle(body, version >= VersionRegisterBody)
		require.NoError(t, err, "%s", body)
		require.Equal(t, !stamped, rb.DataVersionUnstamped, "%s", body)
	})
}

// stampOracle reads body with encoding/json's tokenizer.
func stampOracle(body []byte, full bool) (bool, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if !full {
		return objectStamp(d, "dataVersion", func(d *json.Decoder) (bool, error) {
			return objectStamp(d, "timestamp", setsLong)
		})
	}
	return objectStamp(d, "topicConfigSerializeWrapper", func(d *json.Decoder) (bool, error) {
		return objectStamp(d, "dataVersion", func(d *json.Decoder) (bool, error) {
			return objectStamp(d, "timestamp", setsLong)
		})
	})
}

// objectStamp reads one value: for an object, member's answer on the
// value of key's last occurrence (for timestamp, on any occurrence: a set
// timestamp stays); false for null or an object without key.
func objectStamp(d *json.Decoder, key string, member func(*json.Decoder) (bool, error)) (bool, error) {
	tok, err := d.Token()
	if err != nil {
		return false, err
	}
	if tok == nil {
		return false, nil
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return false, skipRest(d, tok)
	}
	got := false
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return false, err
		}
		if !smartKey(k, key) {
			if err := skipValue(d); err != nil {
				return false, err
			}
			continue
		}
		v, err := member(d)
		if err != nil {
			return false, err
		}
		if key == "timestamp" {
			got = got || v // a null timestamp leaves an earlier one
		} else {
			got = v // a new wrapper or DataVersion per occurrence
		}
	}
	_, err = d.Token()
	return got, err
}

// smartKey reports whether the member name k names the bean field key as
// fastjson's smart match does: exactly, or once both are lower-cased and
// stripped of '_' and '-' (JavaBeanDeserializer.smartMatch), the same
// reading as the decoders' smart match (smartmatch.go).
func smartKey(k json.Token, key string) bool {
	name, ok := k.(string)
	if !ok {
		return false
	}
	return name == key || foldName(name) == foldName(key)
}

// foldName lower-cases ASCII letters only and drops '_' and '-', as
// fastjson's TypeUtils.fnv1a_64_extract does.
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == '-':
			return -1
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// setsLong reports whether a timestamp value is not a null long.
func setsLong(d *json.Decoder) (bool, error) {
	tok, err := d.Token()
	if err != nil {
		return false, err
	}
	switch v := tok.(type) {
	case nil:
		return false, nil
	case string:
		return v != "" && v != "null" && v != "NULL", nil
	case json.Delim:
		return true, skipRest(d, tok)
	}
	return true, nil
}

// skipValue skips one value.
func skipValue(d *json.Decoder) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	return skipRest(d, tok)
}

// skipRest skips what follows tok when it opens an array or object.
func skipRest(d *json.Decoder, tok json.Token) error {
	delim, ok := tok.(json.Delim)
	if !ok || (delim != '{' && delim != '[') {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		if dl, ok := tok.(json.Delim); ok {
			if dl == '{' || dl == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}
