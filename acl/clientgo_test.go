package acl

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

// TestClientGoSignatureVerifies captures the route lookup a
// rocketmq-client-go admin signs with WithCredentials (with and without a
// SecurityToken) on a raw listener and checks the frame byte for byte
// against our verifier.
func TestClientGoSignatureVerifies(t *testing.T) {
	got := make(chan *remoting.Command, 4)
	srv := remoting.NewServer(remoting.ServerConfig{Logger: testlog.New(t, "raw")})
	srv.Register(remoting.GetRouteinfoByTopic, func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		got <- req
		return remoting.NewResponse(req, remoting.TopicNotExist, "no route"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	for _, cred := range []primitive.Credentials{
		{AccessKey: "goClient1", SecretKey: "goSecret1"},
		{AccessKey: "goClient2", SecretKey: "goSecret2", SecurityToken: "tok"},
	} {
		adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{ln.Addr().String()})),
			admin.WithCredentials(cred))
		require.NoError(t, err)
		_, _ = adm.FetchPublishMessageQueues(context.Background(), "SignedTopic")
		_ = adm.Close()
		var req *remoting.Command
		select {
		case req = <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("no route request arrived")
		}
		t.Logf("ext fields: %v", req.ExtFields)
		require.Equal(t, cred.AccessKey, req.ExtFields[FieldAccessKey])
		require.Equal(t, "SignedTopic", req.ExtFields["topic"])
		require.True(t, validSignature(req, cred.SecretKey), "client-go's signature must verify")
		require.False(t, validSignature(req, "otherSecret"))
		if cred.SecurityToken != "" {
			// rocketmq-client-go sends SecurityToken but leaves its value
			// out of what it signs; Java's AclClientRPCHook signs it.
			require.Equal(t, "tok", req.ExtFields[FieldSecurityToken])
			req.ExtFields[FieldSecurityToken] = "other"
			require.True(t, validSignature(req, cred.SecretKey), "the token is not signed by client-go")
		}
	}
}
