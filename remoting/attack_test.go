package remoting

import (
	"encoding/binary"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// extHeavyFrame is a frame of code whose ROCKETMQ header is ~16 MiB of
// distinct one-byte-valued extFields (9 bytes each on the wire).
func extHeavyFrame(code int32) []byte {
	hdr := binary.BigEndian.AppendUint16(nil, uint16(code))
	hdr = append(hdr, 0)
	hdr = binary.BigEndian.AppendUint16(hdr, 0)
	hdr = binary.BigEndian.AppendUint32(hdr, 1) // opaque
	hdr = binary.BigEndian.AppendUint32(hdr, 0) // flag: request
	hdr = binary.BigEndian.AppendUint32(hdr, 0) // no remark
	extAt := len(hdr)
	hdr = append(hdr, 0, 0, 0, 0)
	for i := 0; len(hdr) < maxHeaderLength-16; i++ {
		hdr = binary.BigEndian.AppendUint16(hdr, 3)
		hdr = append(hdr, byte(i>>16), byte(i>>8), byte(i))
		hdr = binary.BigEndian.AppendUint32(hdr, 1)
		hdr = append(hdr, 'v')
	}
	binary.BigEndian.PutUint32(hdr[extAt:], uint32(len(hdr)-extAt-4))
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(hdr)))
	frame = binary.BigEndian.AppendUint32(frame, uint32(SerializeRocketMQ)<<24|uint32(len(hdr)))
	return append(frame, hdr...)
}

// TestAttackDecodedHeadersBeyondFrameBudget: the partial-frame budget
// charges a large frame its wire length only while its bytes arrive, and
// gives it back before the frame is decoded. A ~16 MiB header of small
// extFields decodes into a map of ~4x that size, uncharged; and while the
// handler runs (a slow handler: the registration lane, the controller's
// scheduler) every connection holds its decoded command. Three connections
// against a 16 MiB budget: live heap grows ~200 MiB.
func TestAttackDecodedHeadersBeyondFrameBudget(t *testing.T) {
	const code, conns, budget = 7777, 3, 16 * mib
	s, addr := newTestServer(t, ServerConfig{PartialFrameBudget: budget})
	release := make(chan struct{})
	defer close(release)
	var entered atomic.Int64
	s.Register(code, func(_ *Conn, req *Command) (*Command, error) {
		entered.Add(1)
		<-release // a slow handler
		return NewResponse(req, Success, ""), nil
	})
	frame := extHeavyFrame(code)
	base := heapInUse()
	for range conns {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = nc.Close() })
		go func() { _, _ = nc.Write(frame) }()
	}
	deadline := time.Now().Add(60 * time.Second)
	for entered.Load() < conns && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	growth := heapInUse() - base
	t.Logf("%d handlers holding decoded %d MiB headers: heap growth %d MiB (budget %d MiB)",
		entered.Load(), len(frame)/mib, growth/mib, budget/mib)
	require.LessOrEqual(t, growth, int64(budget+16*mib), "decoded commands are held outside the frame budget")
}
