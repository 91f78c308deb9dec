// Package version names this build: the binary's release version (set at
// link time by the Makefile) and the newest format of the Controller's
// replicated log entries, snapshots and Raft RPCs it reads
// (docs/controller.md, "Versions and upgrades").
package version
