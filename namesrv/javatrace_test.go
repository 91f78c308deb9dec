package namesrv

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// deliberateDiff is a difference from Java's answers that the NameServer
// makes on purpose (docs/protocol.md §6): a step whose answers differ
// only as match says counts as deliberate.
type deliberateDiff struct {
	name   string
	reason string
	match  func(st traceStep) bool
}

// traceStep is one replayed step: its operation, Java's answer lines and
// ours, and the driver's view of the state Java has and we have not.
type traceStep struct {
	op        traceOp
	want, got []string
	orphans   map[string]bool // see traceDriver.orphans
	diverged  string          // see traceDriver.diverged
}

// deliberateDiffs is every deliberate difference the replay accepts.
var deliberateDiffs = []deliberateDiff{
	{
		name: divergedOrphan,
		reason: "a connection closing while no group of its cluster lists its address drops its live and " +
			"filter-server entries; Java keeps them for ever (its expiry scan finds no group either), so it " +
			"goes on routing the filter servers and answering the dead master's haServerAddr and masterAddr; " +
			"a later close of that pair unregisters, in Java, whatever group lists the address by then, and " +
			"a registration from it with the same DataVersion puts no topics: from either on the rest of the " +
			"trace is not compared step by step",
		match: func(st traceStep) bool { return st.diverged == divergedOrphan || orphanExplains(st) },
	},
	{
		name: divergedClose,
		reason: "a closed connection unregisters the group it registered; Java the first group of the " +
			"cluster, in its table's order, that lists the address (another broker's, when two groups " +
			"list it). The tables differ from then on: the rest of the trace is not compared step by step",
		match: func(st traceStep) bool { return st.diverged == divergedClose },
	},
	{
		name: divergedDeadAddr,
		reason: "once every connection that registered an address has closed or expired and the address " +
			"has no live entry, no group lists it, no route names it and its filter servers go " +
			"(docs/protocol.md §4.4); Java leaves it in the groups a close or an unregistration did not " +
			"name, routing to a dead address. Matched only when no open connection of the replay " +
			"registered the address and it has no live entry. The tables differ from then on: the rest " +
			"of the trace is not compared step by step",
		match: func(st traceStep) bool { return st.diverged == divergedDeadAddr },
	},
}

// traceTally counts the replayed steps.
type traceTally struct {
	mu                                              sync.Mutex
	traces, steps, identical, deliberate, different int
	byDiff                                          map[string]int // deliberate steps by difference
}

// add counts one trace's steps.
func (n *traceTally) add(o *traceTally) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.traces, n.steps, n.identical = n.traces+o.traces, n.steps+o.steps, n.identical+o.identical
	n.deliberate, n.different = n.deliberate+o.deliberate, n.different+o.different
	for k, v := range o.byDiff {
		n.byDiff[k] += v
	}
}

// TestJavaRouteTraces replays every trace of the Java 5.3.3 route tables
// (shared/golden/routeinfo-java-5.3.3, or RMQ_JAVA_TRACES) through the
// processors, over real connections with the bodies and headers a broker
// and a client send, and compares every answer after every step.
func TestJavaRouteTraces(t *testing.T) {
	dir := javaTracesPath(t)
	if dir == "" {
		t.Skip("no shared/golden/" + javaTracesDir + " above the working directory (RMQ_JAVA_TRACES names one)")
	}
	n := traceTally{byDiff: map[string]int{}}
	t.Run("replay", func(t *testing.T) {
		for _, tr := range loadJavaTraces(t, dir) {
			t.Run(tr.name, func(t *testing.T) {
				t.Parallel() // each on its own NameServer; they wait on loopback round trips
				replayJavaTrace(t, tr, &n)
			})
		}
	})
	for _, dd := range deliberateDiffs {
		t.Logf("deliberate %q: %d steps", dd.name, n.byDiff[dd.name])
	}
	t.Logf("java route traces: %d traces, %d steps, %d identical, %d deliberate, %d different",
		n.traces, n.steps, n.identical, n.deliberate, n.different)
	if n.different > 0 {
		t.Fail()
	}
}

// replayJavaTrace replays one trace on a fresh NameServer, logging the
// first differing steps.
func replayJavaTrace(t *testing.T, tr *javaTrace, total *traceTally) {
	d := newTraceDriver(t)
	logged := 0
	n := &traceTally{traces: 1, byDiff: map[string]int{}}
	defer total.add(n)
	for i, op := range tr.ops {
		got := []string{d.step(i+1, op)}
		if notes := d.takeNotes(); notes != "" {
			got = append(got, notes)
		}
		got = append(got, d.answers(tr.universe)...)
		d.noteDead(op)
		want := tr.answers[i]
		n.steps++
		if equalLines(want, got) {
			n.identical++
			continue
		}
		d.noteDeadAddrs(tr.universe, want, got)
		if name := deliberate(traceStep{op: op, want: want, got: got, orphans: d.orphans, diverged: d.diverged}); name != "" {
			n.deliberate++
			n.byDiff[name]++
			continue
		}
		n.different++
		if logged < 3 || os.Getenv("RMQ_TRACE_VERBOSE") != "" { // RMQ_TRACE_VERBOSE: every differing step
			logged++
			logFirstDiff(t, tr, i, want, got)
		}
	}
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// deliberate names the deliberate difference the step shows, or "".
func deliberate(st traceStep) string {
	for _, dd := range deliberateDiffs {
		if dd.match(st) {
			return dd.name
		}
	}
	return ""
}

func logFirstDiff(t *testing.T, tr *javaTrace, i int, want, got []string) {
	for j := range max(len(want), len(got)) {
		var w, g string
		if j < len(want) {
			w = want[j]
		}
		if j < len(got) {
			g = got[j]
		}
		if w != g {
			at := max(commonPrefix(w, g)-80, 0)
			t.Logf("%s step %d (%s), line %d from byte %d:\n java: %s\n   go: %s", tr.name, i+1, tr.ops[i].Op, j, at,
				clip(w, at), clip(g, at))
			return
		}
	}
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// clip returns up to 240 bytes of s from at.
func clip(s string, at int) string {
	s = s[min(at, len(s)):]
	return s[:min(len(s), 240)]
}

// orphanExplains reports whether every differing line of the step is
// Java's use of an orphaned live entry: a route listing the filter
// servers of an orphaned address, or a registration answered with the
// haServerAddr and masterAddr of an orphaned master.
func orphanExplains(st traceStep) bool {
	if len(st.orphans) == 0 || len(st.want) != len(st.got) {
		return false
	}
	for j := range st.want {
		w, g := st.want[j], st.got[j]
		switch {
		case w == g:
		case j == 0 && st.op.Op == "reg":
			_, master, ok := strings.Cut(w, " master=")
			if !ok || !strings.HasSuffix(g, " ha=null master=null") || !st.orphans[orphanKey(st.op.Cluster, master)] {
				return false
			}
		case strings.HasPrefix(w, "105 "):
			if !onlyOrphanFilters(w, g, st.orphans) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// onlyOrphanFilters reports whether two route lines differ only in the
// filter servers of orphaned addresses.
func onlyOrphanFilters(w, g string, orphans map[string]bool) bool {
	wt, wrest, ok1 := cutFilterTable(w)
	gt, grest, ok2 := cutFilterTable(g)
	if !ok1 || !ok2 || wrest != grest {
		return false
	}
	var wm, gm map[string][]string
	if json.Unmarshal([]byte(wt), &wm) != nil || json.Unmarshal([]byte(gt), &gm) != nil {
		return false
	}
	orphaned := func(addr string) bool {
		for k := range orphans {
			if strings.HasSuffix(k, " "+addr) {
				return true
			}
		}
		return false
	}
	for addr := range wm {
		if !slices.Equal(wm[addr], gm[addr]) && !orphaned(addr) {
			return false
		}
	}
	for addr := range gm {
		if _, ok := wm[addr]; !ok && !orphaned(addr) {
			return false
		}
	}
	return true
}

// cutFilterTable returns the filterServerTable object of a route line
// and the line without it.
func cutFilterTable(line string) (table, rest string, ok bool) {
	const key = `"filterServerTable":`
	i := strings.Index(line, key)
	if i < 0 {
		return "", "", false
	}
	j := strings.IndexByte(line[i:], '}')
	if j < 0 {
		return "", "", false
	}
	return line[i+len(key) : i+j+1], line[:i] + line[i+j+1:], true
}
