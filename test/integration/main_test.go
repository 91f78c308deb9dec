package integration

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/hashicorp/go-hclog"
)

// TestMain silences rocketmq-client-go and removes the built binary.
func TestMain(m *testing.M) {
	rlog.SetLogger(quietLogger{verbose: os.Getenv("RMQ_CLIENT_LOG") != ""})
	code := m.Run()
	cleanupBinary()
	os.Exit(code)
}

// quietLogger drops rocketmq-client-go's logs (it logs every connection and
// route refresh); with RMQ_CLIENT_LOG set it prints errors to stderr.
type quietLogger struct{ verbose bool }

func (quietLogger) Debug(string, map[string]interface{})   {}
func (quietLogger) Info(string, map[string]interface{})    {}
func (quietLogger) Warning(string, map[string]interface{}) {}
func (l quietLogger) Error(msg string, f map[string]interface{}) {
	if l.verbose {
		fmt.Fprintln(os.Stderr, "rocketmq-client-go:", msg, f)
	}
}
func (l quietLogger) Fatal(msg string, f map[string]interface{}) { l.Error(msg, f) }
func (quietLogger) Level(string)                                 { /* fixed */ }
func (quietLogger) OutputPath(string) error                      { return nil }

// testLogger routes hclog output to t.Log.
func testLogger(t testing.TB, name string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: name, Output: tWriter{t}, Level: hclog.Info})
}

// tWriter writes each chunk as one t.Log line.
type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
