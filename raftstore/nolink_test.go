package raftstore

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBinariesLinkNoTestTooling: no package of this module that the two
// binaries link imports testing, under either tag set; the default build
// links no testing at all. (hashicorp/raft, linked by the tagged build,
// imports testing for its own test cluster: that package is outside this
// module.) Test tooling lives in ...test packages (raftstoretest,
// metricstest) that only tests import.
func TestBinariesLinkNoTestTooling(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	for _, tags := range []string{"", "embedded_controller"} {
		out, err := exec.Command(goTool, "list", "-tags="+tags, "-deps",
			"-f", "{{.ImportPath}} {{join .Imports \",\"}}",
			"github.com/rmqgo/nameserver/cmd/namesrv", "github.com/rmqgo/nameserver/cmd/controller").CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "github.com/rmqgo/nameserver/remoting ", "go list output looks wrong")
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, imports, _ := strings.Cut(line, " ")
			if tags == "" {
				require.NotEqual(t, "testing", pkg, "the default build links testing")
			}
			if strings.HasPrefix(pkg, "github.com/rmqgo/nameserver") {
				require.NotContains(t, strings.Split(imports, ","), "testing", "tags %q: %s imports testing", tags, pkg)
			}
		}
	}
}
