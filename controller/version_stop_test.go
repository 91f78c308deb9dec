//go:build embedded_controller

package controller

import (
	"fmt"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestApplyStopsOnNewerFormatEntry: an entry of a format this node does
// not read (a type it does not know) stops Apply, and the log says why
// before the process stops: the entry's index, the format the node reads
// and that a newer binary is needed. It is never skipped.
func TestApplyStopsOnNewerFormatEntry(t *testing.T) {
	logger, lines := testlog.Capture(t, "fsm", hclog.Info)
	f := NewFSM(logger)
	entry := []byte{67, '{', '}'} // a type of a later format
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		f.Apply(&raft.Log{Index: 7, Type: raft.LogCommand, Data: entry})
	}()
	require.NotNil(t, recovered, "an entry of a newer format was applied or skipped")
	t.Logf("stop: %v", recovered)
	require.Contains(t, fmt.Sprint(recovered), "index 7")
	require.True(t, lines.Has("cannot apply log entry"), "no log line before the stop:\n%s", lines)
	require.True(t, lines.Has("reads_format=2"), "the line does not say which format the node reads:\n%s", lines)
	require.True(t, lines.Has("this binary reads formats up to 2"), "the line does not name the format:\n%s", lines)
}
