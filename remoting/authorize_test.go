package remoting

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAuthorizeRunsBeforeEveryHandler: a denial answers instead of the
// handler for plain, RegisterAsync and unregistered codes, drops a denied
// oneway, and an allowed request reaches its handler.
func TestAuthorizeRunsBeforeEveryHandler(t *testing.T) {
	var ran atomic.Int32
	h := func(c *Conn, req *Command) (*Command, error) {
		ran.Add(1)
		return NewResponse(req, Success, ""), nil
	}
	s, addr := newTestServer(t, ServerConfig{Authorize: func(c *Conn, req *Command) *Command {
		if _, ok := req.ExtString("allow"); ok {
			return nil
		}
		return NewResponse(req, NoPermission, "denied")
	}})
	s.Register(10, h)
	s.RegisterAsync(11, h)
	s.SetDefaultHandler(h)
	c := dial(t, addr, ClientOptions{})
	for _, code := range []int32{10, 11, 12} {
		resp := invoke(t, c, NewRequest(code, nil, nil))
		require.Equal(t, NoPermission, resp.Code, "code %d", code)
	}
	require.NoError(t, c.InvokeOneway(NewRequest(10, nil, nil)))
	require.Zero(t, ran.Load())
	for _, code := range []int32{10, 11, 12} {
		resp := invoke(t, c, NewRequest(code, map[string]string{"allow": ""}, nil))
		require.Equal(t, Success, resp.Code, "code %d", code)
	}
	require.EqualValues(t, 3, ran.Load())
}

// TestClientSignSignsACopy: Sign sees every request sent, and the
// caller's command keeps its fields.
func TestClientSignSignsACopy(t *testing.T) {
	seen := make(chan string, 2)
	s, addr := newTestServer(t, ServerConfig{})
	s.Register(10, func(c *Conn, req *Command) (*Command, error) {
		v, _ := req.ExtString("sig")
		seen <- v
		return NewResponse(req, Success, ""), nil
	})
	c := dial(t, addr, ClientOptions{Sign: func(req *Command) { req.SetExt("sig", "x") }})
	req := NewRequest(10, map[string]string{"a": "1"}, nil)
	invoke(t, c, req)
	require.NoError(t, c.InvokeOneway(req))
	require.Equal(t, "x", <-seen)
	require.Equal(t, "x", <-seen)
	require.Equal(t, map[string]string{"a": "1"}, req.ExtFields)
}
