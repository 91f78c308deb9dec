package namesrv

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// TestRegisterDigestCoversWhatChangesTheAnswer: equal registrations get
// equal digests, and a change to the body (one byte, or its length) or to a
// header field that changes how it decodes or whose it is gives another.
func TestRegisterDigestCoversWhatChangesTheAnswer(t *testing.T) {
	base := javaRegister(remoting.RegisterBroker, registerBody(t, 20, 1))
	digest := func(req *remoting.Command) wire.BodyDigest {
		rr, err := decodeRegisterHeader(req)
		require.NoError(t, err)
		return registerDigest(req, &rr)
	}
	want := digest(base)
	require.NotZero(t, want)
	require.Equal(t, want, digest(javaRegister(remoting.RegisterBroker, registerBody(t, 20, 1))))
	edits := map[string]func(c *remoting.Command){
		"one body byte":  func(c *remoting.Command) { c.Body[len(c.Body)/2] ^= 1 },
		"body length":    func(c *remoting.Command) { c.Body = append(c.Body, ' ') },
		"brokerName":     func(c *remoting.Command) { c.ExtFields["brokerName"] = "broker-m" },
		"brokerId":       func(c *remoting.Command) { c.ExtFields["brokerId"] = "1" },
		"version":        func(c *remoting.Command) { c.Version++ },
		"compressed":     func(c *remoting.Command) { c.ExtFields["compressed"] = "true" },
		"bodyCrc32 text": func(c *remoting.Command) { c.ExtFields["bodyCrc32"] = "0" },
	}
	for name, edit := range edits {
		c := *base
		c.ExtFields = maps.Clone(base.ExtFields)
		c.Body = append([]byte(nil), base.Body...)
		edit(&c)
		require.NotEqual(t, want, digest(&c), name)
	}
}

// BenchmarkRegisterDigest digests a 10,000-topic registration (1.6 MB).
func BenchmarkRegisterDigest(b *testing.B) {
	req := javaRegister(remoting.RegisterBroker, registerBody(b, 10_000, 1))
	rr, err := decodeRegisterHeader(req)
	require.NoError(b, err)
	b.SetBytes(int64(len(req.Body)))
	b.ResetTimer() // building the body takes tens of milliseconds
	for range b.N {
		registerDigest(req, &rr)
	}
}
