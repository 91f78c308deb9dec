package ctlbroker

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// lossyController is a one-node controller that names itself leader and
// answers the first 1013, 1003 and 1002 with 1, as a leader that lost its
// lease with the entry in flight does; later ones get 0.
type lossyController struct {
	addr       string
	mu         sync.Mutex
	seen       map[int32]int
	checkCodes []string // registerCheckCode of each 1013
}

func startLossyController(t *testing.T) *lossyController {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	c := &lossyController{addr: ln.Addr().String(), seen: map[int32]int{}}
	srv := remoting.NewServer(remoting.ServerConfig{})
	srv.Register(remoting.ControllerGetMetadataInfo, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		resp := remoting.NewResponse(req, remoting.Success, "")
		resp.ExtFields = map[string]string{"controllerLeaderAddress": c.addr, "isLeader": "true"}
		return resp, nil
	})
	srv.Register(remoting.ControllerGetNextBrokerID, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		resp := remoting.NewResponse(req, remoting.Success, "")
		resp.ExtFields = map[string]string{"nextBrokerId": "1"}
		return resp, nil
	})
	for _, code := range []int32{remoting.ControllerApplyBrokerID, remoting.ControllerRegisterBroker, remoting.ControllerElectMaster} {
		srv.Register(code, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if code == remoting.ControllerApplyBrokerID {
				c.checkCodes = append(c.checkCodes, req.ExtFields["registerCheckCode"])
			}
			if c.seen[code]++; c.seen[code] == 1 {
				return remoting.NewResponse(req, remoting.SystemError,
					"append to the controller log failed: raftstore: not the raft leader: leadership lost while committing log"), nil
			}
			return remoting.NewResponse(req, remoting.Success, ""), nil
		})
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return c
}

func (c *lossyController) count(code int32) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[code]
}

// TestUnknownOutcomeSentAgain: an answer of 1 to 1013, 1003 or 1002 leaves
// the outcome unknown (the entry may be committed by the next leader), so
// the broker sends the same request again, as the Java broker retries these
// steps. Under load the controller leaders of test/controllertest lost their
// lease during a pair's setup (TestProcessClusterEmbeddedInNamesrv failed
// 2 runs in 30 on 'apply broker id (1013): code 1' and the like).
func TestUnknownOutcomeSentAgain(t *testing.T) {
	ctl := startLossyController(t)
	b, err := New(Config{Name: "broker-a", Controllers: []string{ctl.addr}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	id, err := b.ApplyID(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, id)
	_, err = b.Register(ctx)
	require.NoError(t, err)
	resp, err := b.Elect(ctx)
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	for _, code := range []int32{remoting.ControllerApplyBrokerID, remoting.ControllerRegisterBroker, remoting.ControllerElectMaster} {
		require.Equal(t, 2, ctl.count(code), "code %d: sent again once", code)
	}
	require.Equal(t, ctl.checkCodes[0], ctl.checkCodes[1], "1013 sent again with the same registerCheckCode")
}
