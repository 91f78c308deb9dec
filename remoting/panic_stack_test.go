package remoting

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// panicDeepInAHandler panics a few frames below the handler, as a bug in
// a processor does: an index out of range.
//
//go:noinline
func panicDeepInAHandler(depth int, s []int) int {
	if depth == 0 {
		return s[len(s)+depth]
	}
	return panicDeepInAHandler(depth-1, s)
}

// TestHandlerPanicStackNamesTheSite: the "handler panicked" line is
// what an operator files a bug with; its stack goes through lograte.Wrap
// (the server's logger is wrapped) and must still name the function that
// panicked and the handler that called it, not only the recover
// machinery above them.
func TestHandlerPanicStackNamesTheSite(t *testing.T) {
	logger, lines := testlog.Capture(t, "remoting", hclog.Info)
	s, addr := newTestServer(t, ServerConfig{Logger: logger})
	s.Register(2, func(*Conn, *Command) (*Command, error) { return nil, fmt.Errorf("%d", panicDeepInAHandler(3, nil)) })
	resp := invoke(t, dial(t, addr, ClientOptions{}), NewRequest(2, nil, nil))
	require.Equal(t, SystemError, resp.Code)
	poll.Until(t, "the panic is logged", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return lines.Has("handler panicked") }))
	require.Contains(t, lines.String(), "remoting.panicDeepInAHandler(", "the stack names the panicking function")
	require.Contains(t, lines.String(), "remoting.TestHandlerPanicStackNamesTheSite.func1(",
		"the stack names the handler that called it")
}
