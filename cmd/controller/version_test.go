package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/version"
)

// TestVersionFlag: -version prints the version and the Controller format
// this binary reads, and exits 0 without starting anything.
func TestVersionFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"-version"}, &out, &errOut), errOut.String())
	require.Equal(t, version.String("controller")+"\n", out.String())
}
