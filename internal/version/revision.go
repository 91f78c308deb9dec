package version

import (
	"runtime/debug"
	"sync"
)

// revision is set at link time by the Makefile and the Dockerfile
// (-ldflags "-X github.com/rmqgo/nameserver/internal/version.revision=...").
var revision string

// Revision is the VCS revision the binary was built from (12 hex digits,
// "-dirty" when the tree had uncommitted changes): the one set at link
// time, else the one the go command embeds (vcs.revision); "unknown" with
// neither (go test, -buildvcs=false, a build outside a git checkout).
var Revision = sync.OnceValue(func() string {
	if revision != "" {
		return revision
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return revisionOf(info.Settings)
})

func revisionOf(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
