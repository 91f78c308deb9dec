package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestString: the -version line names the binary, its release and the
// Controller format it reads.
func TestString(t *testing.T) {
	require.Equal(t, "namesrv "+Version+" (revision "+Revision()+", controller format 2)", String("namesrv"))
}

// The revision is the first 12 hex digits, marked dirty for a tree with
// uncommitted changes, and unknown without VCS information.
func TestRevisionOf(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "87f0f91d2b3c4e5f60718293a4b5c6d7e8f90a1b"}
	require.Equal(t, "87f0f91d2b3c", revisionOf([]debug.BuildSetting{rev}))
	require.Equal(t, "87f0f91d2b3c-dirty", revisionOf([]debug.BuildSetting{rev, {Key: "vcs.modified", Value: "true"}}))
	require.Equal(t, "unknown", revisionOf(nil))
}
