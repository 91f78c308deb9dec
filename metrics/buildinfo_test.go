package metrics

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/version"
)

// TestBuildInfoAndVersionGauges: every process registry names the binary
// (version, Controller format); a Controller source's cluster and format
// versions are gauges.
func TestBuildInfoAndVersionGauges(t *testing.T) {
	reg := NewProcessRegistry()
	c := NewController(reg)
	c.SetSource(fakeSource{stats: map[string]string{"state": "Follower", "cluster_version": "2", "format_version": "2"}})
	fs := parse(t, reg)
	require.Equal(t, 1.0, fs.Sum(BuildInfoName, "version", version.Version, "revision", version.Revision(),
		"controller_format", strconv.Itoa(version.ControllerFormat)))
	require.Equal(t, 2.0, fs.Sum("rocketmq_controller_cluster_version"))
	require.Equal(t, 2.0, fs.Sum("rocketmq_controller_format_version"))
}
