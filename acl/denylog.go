package acl

import (
	"sync"
	"time"
)

// maxDenyKeys bounds the access keys remembered per minute; denials of
// further keys in that minute share one entry (access keys are chosen by
// the sender, so the set must not grow without bound).
const maxDenyKeys = 1024

// overflowKey stands for every access key beyond maxDenyKeys.
const overflowKey = "\x00overflow"

// denyLog decides which denials are logged: the first of each access key
// in each minute.
type denyLog struct {
	mu     sync.Mutex
	minute time.Time
	seen   map[string]struct{}
}

func newDenyLog() *denyLog { return &denyLog{seen: make(map[string]struct{})} }

// shouldLog reports whether a denial of accessKey at now is the first of
// its minute.
func (d *denyLog) shouldLog(accessKey string, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m := now.Truncate(time.Minute); !m.Equal(d.minute) {
		d.minute = m
		clear(d.seen)
	}
	if _, ok := d.seen[accessKey]; !ok && len(d.seen) >= maxDenyKeys {
		accessKey = overflowKey
	}
	if _, ok := d.seen[accessKey]; ok {
		return false
	}
	d.seen[accessKey] = struct{}{}
	return true
}
