package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The gauges the alerting rules compare come from the source's stats:
// broker sets without a master and the bounds of the replicated state.
func TestAlertingGaugesFromStats(t *testing.T) {
	reg := NewRegistry()
	c := NewController(reg)
	c.SetSource(fakeSource{stats: map[string]string{"state": "Leader",
		"broker_sets_without_master": "2", "state_bytes_limit": "268435456", "broker_sets_limit": "10000"}})
	fs := parse(t, reg)
	require.Equal(t, 2.0, fs.Sum("rocketmq_controller_broker_sets_without_master"))
	require.Equal(t, 268435456.0, fs.Sum("rocketmq_controller_state_bytes_limit"))
	require.Equal(t, 10000.0, fs.Sum("rocketmq_controller_broker_sets_limit"))
}
