package main

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUsage(t *testing.T) {
	var out, errs strings.Builder
	require.Equal(t, 2, run(nil, &out, &errs))
	require.Contains(t, errs.String(), "usage: brokerflow -a CONTROLLERS")
	require.Equal(t, 2, run([]string{"-a", "127.0.0.1:1", "extra"}, &out, &errs))
	require.Equal(t, 0, run([]string{"-h"}, &out, &errs))
}

func TestBadBrokerCount(t *testing.T) {
	var out, errs strings.Builder
	require.Equal(t, 1, run([]string{"-a", "127.0.0.1:1", "-brokers", "4"}, &out, &errs))
	require.Contains(t, errs.String(), "4 brokers; a failover needs 2 or 3")
}

// TestNoLeaderFails: a controller address that accepts nothing fails the
// leader step within -step-timeout, exit code 1.
func TestNoLeaderFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	var out, errs strings.Builder
	require.Equal(t, 1, run([]string{"-a", addr + "; ", "-step-timeout", "200ms"}, &out, &errs))
	require.Contains(t, out.String(), " 2. find leader (1005)")
	require.Contains(t, out.String(), "FAILED: no controller names a leader")
	require.Contains(t, errs.String(), "step 2 (find leader (1005))")
}

func TestSplitAddrs(t *testing.T) {
	require.Equal(t, []string{"a:1", "b:2"}, splitAddrs(" a:1;;b:2 ;"))
	require.Nil(t, splitAddrs(""))
}
