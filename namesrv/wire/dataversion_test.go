package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegisterDataVersionUnstamped covers every way a register body can
// leave its DataVersion without timestamp: Java's new DataVersion() then
// keeps the time of decoding (TopicConfigSerializeWrapper, DataVersion).
func TestRegisterDataVersionUnstamped(t *testing.T) {
	wrapper := func(members string) []byte {
		return []byte(`{"filterServerList":[],"topicConfigSerializeWrapper":{` + members + `}}`)
	}
	table := `"topicConfigTable":{"A":{"topicName":"A"}}`
	cases := []struct {
		name      string
		body      []byte
		version   int32
		want      DataVersion
		unstamped bool
	}{
		{"stamped", wrapper(`"dataVersion":{"counter":1,"stateVersion":2,"timestamp":3},` + table), 479,
			DataVersion{Counter: 1, StateVersion: 2, Timestamp: 3}, false},
		{"timestamp 0", wrapper(`"dataVersion":{"timestamp":0}`), 479, DataVersion{}, false},
		{"empty body", nil, 479, DataVersion{}, false},
		{"no wrapper", []byte(`{"filterServerList":[]}`), 479, DataVersion{}, true},
		{"no dataVersion", wrapper(table), 479, DataVersion{}, true},
		{"null dataVersion", wrapper(`"dataVersion":null,` + table), 479, DataVersion{}, true},
		{"no timestamp", wrapper(`"dataVersion":{"counter":4,"stateVersion":5}`), 479,
			DataVersion{Counter: 4, StateVersion: 5}, true},
		{"a new object per occurrence", wrapper(`"dataVersion":{"timestamp":3},"dataVersion":{"counter":2}`), 479,
			DataVersion{Counter: 2}, true},
		{"stamped again", wrapper(`"dataVersion":{"counter":2},"dataVersion":{"timestamp":3}`), 479,
			DataVersion{Timestamp: 3}, false},
		{"legacy wrapper", []byte(`{` + table + `}`), 36, DataVersion{}, true},
		{"legacy stamped", []byte(`{"dataVersion":{"timestamp":9},` + table + `}`), 36,
			DataVersion{Timestamp: 9}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rb, err := DecodeRegisterBody(c.body, c.version, false)
			require.NoError(t, err)
			require.Equal(t, c.want, rb.DataVersion)
			require.Equal(t, c.unstamped, rb.DataVersionUnstamped)
		})
	}
}

func TestCompressedDataVersionUnstamped(t *testing.T) {
	rb, err := DecodeRegisterBody(compressedRaw(t, rawBody(0, nil, "[]")), 479, true)
	require.NoError(t, err)
	require.False(t, rb.DataVersionUnstamped)

	rb, err = DecodeRegisterBody(compressedRaw(t, rawBodyDV(`{"counter":1}`, 0, nil, "[]")), 479, true)
	require.NoError(t, err)
	require.True(t, rb.DataVersionUnstamped)
	require.Equal(t, DataVersion{Counter: 1}, rb.DataVersion)
}

func TestDecodeDataVersionStamp(t *testing.T) {
	for body, stamped := range map[string]bool{`{}`: false, `{"counter":1}`: false, `{"timestamp":0}`: true,
		`{"counter":1,"stateVersion":0,"timestamp":2}`: true} {
		dv, got, err := DecodeDataVersionStamp([]byte(body))
		require.NoError(t, err, body)
		require.Equal(t, stamped, got, body)
		plain, err := DecodeDataVersion([]byte(body))
		require.NoError(t, err)
		require.Equal(t, plain, dv, body)
	}
	_, err := DecodeDataVersion([]byte(`null`))
	require.ErrorIs(t, err, ErrNullBody)
	_, _, err = DecodeDataVersionStamp([]byte(` `))
	require.ErrorIs(t, err, ErrNullBody)
}
