package version

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestString: the -version line names the binary, its release and the
// Controller format it reads.
func TestString(t *testing.T) {
	require.Equal(t, "namesrv "+Version+" (controller format 2)", String("namesrv"))
}
