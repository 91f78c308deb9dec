package version

import "fmt"

// Version is the binary's release version. The Makefile sets it with
// -ldflags "-X github.com/rmqgo/nameserver/internal/version.Version=...";
// a plain go build keeps the default, which names the next release.
var Version = "1.1.0-dev"

// ControllerFormat is the newest Controller format this build reads:
//
//	1  v1.0.0: log entry types 0-6, 64 (batch) and 65 (fenced); snapshot
//	   formats 1 (JSON) and 2
//	2  adds log entry type 66 (cluster version) and snapshot format 3
//	   (format 2 with the cluster version)
//
// A Controller writes a format only once the replicated cluster version
// allows it, which its leader raises when every node of the group reads it
// (CHANGELOG.md names every format change).
const ControllerFormat = 2

// String is the -version line of the binary named name: its version, the
// VCS revision it was built from and the Controller format it reads.
func String(name string) string {
	return fmt.Sprintf("%s %s (revision %s, controller format %d)", name, Version, Revision(), ControllerFormat)
}
