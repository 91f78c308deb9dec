package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rmqgo/nameserver/admin"
)

// isTerminal reports whether w is a character device other than
// /dev/null (a terminal): where progress lines go; a pipe, a file, a
// buffer or /dev/null get none.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}

// waitProgress rewrites one status line on w after each round of
// waitRoute: how many NameServers are ready, the round and the time left.
// done clears the line before the result is printed.
type waitProgress struct {
	w     io.Writer
	topic string
	limit time.Duration
	shown bool
}

func (p *waitProgress) round(res *admin.WaitResult) {
	ready := 0
	for _, s := range res.Statuses {
		if s.Ready {
			ready++
		}
	}
	left := max(p.limit-res.Elapsed, 0).Round(time.Second)
	fmt.Fprintf(p.w, "\r\033[Kwaiting for %s: %d/%d NameServers ready, round %d, %s left",
		p.topic, ready, len(res.Statuses), res.Rounds, left)
	p.shown = true
}

func (p *waitProgress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
