package acl

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// The expected signatures below were computed outside Go (Python's hmac
// and base64) over the content AclUtils.combineRequestContent builds:
// values in TreeMap key order, Signature left out, then the body.
func TestSignatureKnownVectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		ext  map[string]string
		body []byte
		want string
	}{
		{"route lookup", map[string]string{"topic": "TopicTest", FieldAccessKey: "RocketMQ"}, nil,
			"0jiwhsaYp5ObE5GObbZH1I8/FT4="},
		{"token and body, Signature ignored",
			map[string]string{"topic": "T1", "b": "y", "a": "x", FieldSecurityToken: "tok",
				FieldAccessKey: "rocketmq2", FieldSignature: "old"},
			[]byte(`{"b":1}`), "Z0nEAAHUmN0e4tDc3YTmlxXO7rI="},
		// Java's String.compareTo puts U+1F600 (UTF-16 D83D DE00) before
		// U+FFFF; UTF-8 byte order would not.
		{"UTF-16 key order", map[string]string{"\uffff": "A", "\U0001F600": "B"}, nil,
			"IK1YEDbYOqzSLfJj+TqG2KV8CYY="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Signature(Content(tc.ext, tc.body), "12345678"))
		})
	}
}

// TestSignRoundTrip: what Sign adds, validSignature accepts; any change of
// a value, a key's presence or the body breaks it.
func TestSignRoundTrip(t *testing.T) {
	req := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "T"}, []byte("b"))
	Sign(req, "rocketmq2", "12345678", "tok")
	require.True(t, validSignature(req, "12345678"))
	require.False(t, validSignature(req, "12345679"))
	req.Body = []byte("c")
	require.False(t, validSignature(req, "12345678"))
	req.Body = []byte("b")
	req.SetExt("extra", "")
	require.True(t, validSignature(req, "12345678"), "an empty value adds nothing to the content, as in Java")
	req.SetExt("topic", "U")
	require.False(t, validSignature(req, "12345678"))
	delete(req.ExtFields, FieldSignature)
	require.False(t, validSignature(req, "12345678"))
}

// TestJavaSignedTokenVerifies: Java's AclClientRPCHook signs the
// SecurityToken value with the rest; tampering with another field fails.
func TestJavaSignedTokenVerifies(t *testing.T) {
	req := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "T"}, nil)
	Sign(req, "javaKey1", "javaSecret1", "tok")
	require.True(t, validSignature(req, "javaSecret1"))
	req.SetExt("topic", "U")
	require.False(t, validSignature(req, "javaSecret1"))
}

// TestVerifyDoesNotCopyTheBody: checking the signature of a registration
// with a large body allocates far less than the body (the body is fed to
// the MAC in place, not copied into a content buffer).
func TestVerifyDoesNotCopyTheBody(t *testing.T) {
	req := remoting.NewRequest(remoting.RegisterBroker, map[string]string{"brokerName": "b"}, make([]byte, 4<<20))
	Sign(req, "brokerKey1", "brokerSecret1", "")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.True(t, validSignature(req, "brokerSecret1"))
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d B allocated for a %d B body", allocated, len(req.Body))
	require.Less(t, allocated, uint64(64<<10))
}
