package integration

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// badFrame is raw bytes the server must answer by closing the connection.
type badFrame struct {
	name string
	data []byte
}

// frameWith returns a frame of length field n followed by rest.
func frameWith(n uint32, rest ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, n), rest...)
}

// validFrame is a JSON GET_ALL_TOPIC_LIST_FROM_NAMESERVER request frame.
func validFrame() []byte {
	req := remoting.NewRequest(remoting.GetAllTopicListFromNameserver, nil, nil)
	req.Opaque = 1
	return remoting.EncodeFrame(nil, req)
}

func badFrames() []badFrame {
	unknownType := validFrame()
	unknownType[4] = 7 // serialize type byte of the header word
	garbage := []byte("}{ not a json header")
	return []badFrame{
		{"frame announcing 2 GiB", frameWith(0x7FFFFFFF, 0, 0, 0, 0)},
		{"negative length -1", frameWith(0xFFFFFFFF, 0, 0, 0, 0)},
		{"negative length MinInt32", frameWith(0x80000000, 0, 0, 0, 0)},
		{"length below header word", frameWith(2, 0, 0)},
		{"garbage JSON header", frameWith(uint32(4+len(garbage)), append([]byte{0, 0, 0, byte(len(garbage))}, garbage...)...)},
		{"header length beyond frame", frameWith(8, 0, 0xFF, 0xFF, 0xFF, '{', '}', 0, 0)},
		{"short ROCKETMQ header", frameWith(7, 1, 0, 0, 3, 0, 0, 0)},
		{"HTTP request", []byte("GET / HTTP/1.1\r\nHost: namesrv\r\n\r\n")},
		{"unknown serialize type", unknownType},
	}
}

// requireClosedByServer writes data and checks the server closes the
// connection without answering.
func requireClosedByServer(t *testing.T, addr string, data []byte) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, waitTimeout)
	require.NoError(t, err)
	defer nc.Close()
	_, err = nc.Write(data)
	require.NoError(t, err)
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(waitTimeout)))
	buf := make([]byte, 64)
	n, err := nc.Read(buf)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server kept the connection open")
	require.Error(t, err)
	require.Zero(t, n, "the server answered a bad frame: %q", buf[:n])
}

// requireAnswered sends a valid frame over a raw connection and reads a
// response, proving the raw harness can tell an open connection.
func requireAnswered(t *testing.T, addr string) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, waitTimeout)
	require.NoError(t, err)
	defer nc.Close()
	_, err = nc.Write(validFrame())
	require.NoError(t, err)
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(waitTimeout)))
	frame, err := remoting.ReadFrame(bufio.NewReader(nc), 0, nil)
	require.NoError(t, err)
	resp, err := remoting.DecodeFrame(frame)
	require.NoError(t, err)
	require.True(t, resp.IsResponse())
	require.Equal(t, remoting.Success, resp.Code)
}

// adminLoop calls the Go admin until stopped, counting answers that list
// topic; the first failure is kept.
type adminLoop struct {
	ok    atomic.Int64
	mu    sync.Mutex
	err   error
	stop  chan struct{}
	ended sync.WaitGroup
}

func startAdminLoop(t *testing.T, adm admin.Admin, topic string) *adminLoop {
	l := &adminLoop{stop: make(chan struct{})}
	l.ended.Add(1)
	go func() {
		defer l.ended.Done()
		for {
			select {
			case <-l.stop:
				return
			default:
			}
			l.record(l.once(t, adm, topic))
		}
	}()
	return l
}

func (l *adminLoop) once(t *testing.T, adm admin.Admin, topic string) error {
	tl, err := adm.FetchAllTopicList(ctxT(t))
	if err != nil {
		return err
	}
	if !slices.Contains(tl.TopicList, topic) {
		return fmt.Errorf("topic list %v lacks %s", tl.TopicList, topic)
	}
	return nil
}

func (l *adminLoop) record(err error) {
	if err == nil {
		l.ok.Add(1)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

// finish stops the loop and returns its first error and success count.
func (l *adminLoop) finish() (int64, error) {
	close(l.stop)
	l.ended.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ok.Load(), l.err
}

// TestBadInputClosesOnlyThatConnection: every malformed frame closes its
// own connection; the broker's connection, a bystander client and a
// concurrent rocketmq-client-go admin are unaffected.
func TestBadInputClosesOnlyThatConnection(t *testing.T) {
	forEachTarget(t, testBadInput)
}

func testBadInput(t *testing.T, addr string) {
	b := registeredBroker(t, addr, fakebroker.Topic("SturdyTopic", 4))
	bystander := dialNS(t, addr)
	adm := newAdmin(t, addr)
	_, err := adm.FetchPublishMessageQueues(ctxT(t), "SturdyTopic")
	require.NoError(t, err)
	loop := startAdminLoop(t, adm, "SturdyTopic")

	requireAnswered(t, addr)
	for _, bf := range badFrames() {
		t.Run(bf.name, func(t *testing.T) {
			requireClosedByServer(t, addr, bf.data)
			require.NoError(t, routeHasBroker(ctxT(t), bystander, "SturdyTopic", b))
		})
	}
	t.Run("truncated frame then close", func(t *testing.T) {
		nc, err := net.DialTimeout("tcp", addr, waitTimeout)
		require.NoError(t, err)
		_, err = nc.Write(validFrame()[:10])
		require.NoError(t, err)
		require.NoError(t, nc.Close())
		requireAnswered(t, addr)
		require.NoError(t, routeHasBroker(ctxT(t), bystander, "SturdyTopic", b))
	})

	poll.Until(t, "the concurrent admin to get answers", waitTimeout, 10*time.Millisecond, func() error {
		if loop.ok.Load() < 3 {
			return fmt.Errorf("%d answers so far", loop.ok.Load())
		}
		return nil
	})
	n, err := loop.finish()
	require.NoError(t, err, "after %d good answers", n)
	changed, _, err := b.QueryDataVersion(ctxT(t), addr)
	require.NoError(t, err)
	require.False(t, changed, "the broker must still be registered")
}
