package namesrv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// TestNullTopicTable: fastjson sets "topicConfigSerializeWrapper":null
// and "topicConfigTable":null as given. Java's registerBroker then skips
// step 10 (no topic deleted by deleteTopicWithBrokerRegistration, none
// put), and throws at step 7 when the broker id is not in the group yet
// (getTopicConfigTable() on null; caught: empty SUCCESS, nothing past step
// 5 is done).
func TestNullTopicTable(t *testing.T) {
	stamped := `"dataVersion":{"counter":1,"stateVersion":0,"timestamp":1700000000000},`
	for name, b := range map[string]string{
		"null wrapper": `{"filterServerList":[],"topicConfigSerializeWrapper":null}`,
		"null table":   `{"filterServerList":[],"topicConfigSerializeWrapper":{` + stamped + `"topicConfigTable":null}}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := startServer(t, func(c *config.NamesrvConfig) { c.DeleteTopicWithBrokerRegistration = true })
			conn := dialRaw(t, srv)
			resp := readReplyTo(t, conn, registerFrame(1, "10.2.0.2:10911", []byte(b)))
			require.Equal(t, remoting.Success, resp.Code, resp.Remark)
			require.Empty(t, srv.Routes().ClusterInfo().BrokerAddrTable["broker-u"].BrokerAddrs,
				"step 7 throws for an id not yet in the group")

			registerOK(t, conn, versionlessBody("", 6, 8))
			registerOK(t, conn, []byte(b))
			require.NotNil(t, srv.Routes().Lookup("dv-a"), "step 10 is skipped: nothing deleted")
			require.Equal(t, int32(6), queueOf(t, srv, "dv-b").Perm)
		})
	}
}
