package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDataVersionNullCounterKept: DataVersion.counter is an AtomicLong, so
// fastjson sets "counter":null as a null, which Java's equals matches
// only with another null counter, and which fastjson leaves out when the
// version is written back.
func TestDataVersionNullCounterKept(t *testing.T) {
	dv, _, err := DecodeDataVersionStamp([]byte(`{"counter":null,"stateVersion":1,"timestamp":7}`))
	require.NoError(t, err)
	require.Equal(t, &DataVersion{CounterNull: true, StateVersion: 1, Timestamp: 7}, dv)
	require.NotEqual(t, DataVersion{StateVersion: 1, Timestamp: 7}, *dv, "a null counter equals no 0")
	require.Equal(t, `{"stateVersion":1,"timestamp":7}`, string(AppendDataVersion(nil, dv)))

	dv, _, err = DecodeDataVersionStamp([]byte(`{"counter":null,"counter":3}`))
	require.NoError(t, err)
	require.Equal(t, DataVersion{Counter: 3}, *dv, "a later counter replaces the null")

	rb, err := DecodeRegisterBody([]byte(`{"topicConfigSerializeWrapper":{"dataVersion":{"counter":null,"timestamp":2},`+
		`"topicConfigTable":{}}}`), 479, false)
	require.NoError(t, err)
	require.Equal(t, DataVersion{CounterNull: true, Timestamp: 2}, rb.DataVersion)
}
