package process

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// A level or format that is none of its choices is an error naming the
// variable; unset means info and text.
func TestNewLoggerNamesBadVariable(t *testing.T) {
	_, err := NewLogger("namesrv", "NAMESRV_", &bytes.Buffer{}, env(map[string]string{"NAMESRV_LOG_LEVEL": "verbose"}))
	require.ErrorIs(t, err, ErrLogSetting)
	require.EqualError(t, err, "invalid log setting: NAMESRV_LOG_LEVEL (verbose) is not a log level: trace, debug, info, warn, error or off")
	_, err = NewLogger("namesrv", "NAMESRV_", &bytes.Buffer{}, env(map[string]string{"NAMESRV_LOG_FORMAT": "xml"}))
	require.ErrorContains(t, err, "NAMESRV_LOG_FORMAT (xml) is not a log format")

	var out bytes.Buffer
	l, err := NewLogger("namesrv", "NAMESRV_", &out, env(nil))
	require.NoError(t, err)
	l.Debug("hidden")
	l.Info("shown", "k", 1)
	require.NotContains(t, out.String(), "hidden")
	require.Contains(t, out.String(), "[INFO]  namesrv: shown: k=1")
}

// LOG_FORMAT=json writes one JSON object a line.
func TestNewLoggerJSON(t *testing.T) {
	var out bytes.Buffer
	l, err := NewLogger("mqcontroller", "CONTROLLER_", &out, env(map[string]string{"CONTROLLER_LOG_FORMAT": "JSON", "CONTROLLER_LOG_LEVEL": "debug"}))
	require.NoError(t, err)
	l.Debug("started", "port", 9878)
	var line map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &line))
	require.Equal(t, "started", line["@message"])
	require.Equal(t, "mqcontroller", line["@module"])
	require.Equal(t, 9878.0, line["port"])
}
