package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCtlStormFlags(t *testing.T) {
	o, err := parseFlags([]string{"-workload", "ctlstorm", "-sets", "600", "-mode", "silence", "-ctl-phases", "hb,storm"}, testWriter{t})
	require.NoError(t, err)
	require.Equal(t, 600, o.ctl.sets)
	require.True(t, o.ctl.wants("hb"))
	require.False(t, o.ctl.wants("ops"))
	for _, bad := range [][]string{{"-mode", "partition"}, {"-sets", "0"}, {"-brokers", "1"}, {"-fail", "1.5"},
		{"-ctl-phases", "storm,nope"}, {"-hb-timeout", "10ms"}} {
		_, err := parseFlags(append([]string{"-workload", "ctlstorm"}, bad...), testWriter{t})
		require.Error(t, err, "%v", bad)
	}
}

func TestPickFailedIsSeededAndSized(t *testing.T) {
	a, b := pickFailed(1000, 0.333, 1), pickFailed(1000, 0.333, 1)
	require.Len(t, a, 333)
	require.Equal(t, a, b)
	require.Empty(t, pickFailed(10, 0, 1))
}
