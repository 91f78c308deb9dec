package process

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// ErrLogSetting means a LOG_LEVEL or LOG_FORMAT variable has a value that
// is not one of its choices.
var ErrLogSetting = errors.New("invalid log setting")

// LogLevelVar and LogFormatVar are the names, after the command's
// environment prefix (NAMESRV_, CONTROLLER_), of the variables NewLogger
// reads.
const (
	LogLevelVar  = "LOG_LEVEL"
	LogFormatVar = "LOG_FORMAT"
)

// NewLogger returns the command's logger on w: level from
// <prefix>LOG_LEVEL (trace, debug, info, warn, error, off; info when unset),
// format from <prefix>LOG_FORMAT (text, the default, or json: one JSON
// object per line for log pipelines). getenv is os.Getenv in production.
// A value that is none of its choices is an error naming the variable.
func NewLogger(name, prefix string, w io.Writer, getenv func(string) string) (hclog.Logger, error) {
	level, err := logLevel(prefix+LogLevelVar, getenv(prefix+LogLevelVar))
	if err != nil {
		return nil, err
	}
	json, err := logJSON(prefix+LogFormatVar, getenv(prefix+LogFormatVar))
	if err != nil {
		return nil, err
	}
	return hclog.New(&hclog.LoggerOptions{Name: name, Output: w, Level: level, JSONFormat: json}), nil
}

func logLevel(name, v string) (hclog.Level, error) {
	if strings.TrimSpace(v) == "" {
		return hclog.Info, nil
	}
	level := hclog.LevelFromString(v)
	if level == hclog.NoLevel {
		return level, fmt.Errorf("%w: %s (%s) is not a log level: trace, debug, info, warn, error or off",
			ErrLogSetting, name, v)
	}
	return level, nil
}

func logJSON(name, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "text":
		return false, nil
	case "json":
		return true, nil
	}
	return false, fmt.Errorf("%w: %s (%s) is not a log format: text or json", ErrLogSetting, name, v)
}

// KeyValueArgs turns "key=value" lines into hclog key/value pairs.
func KeyValueArgs(lines []string) []any {
	args := make([]any, 0, 2*len(lines))
	for _, l := range lines {
		k, v, _ := strings.Cut(l, "=")
		args = append(args, k, v)
	}
	return args
}
