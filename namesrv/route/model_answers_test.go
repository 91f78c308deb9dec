package route

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// traceGolden holds, per step of modelWorld runs, a digest of every answer
// built from the route tables, first recorded from tables without shared
// snapshots, open-addressed topic sets or the published table as
// topicQueueTable, and recorded again for each deliberate change of the
// answers (see the git log of testdata). RMQ_RECORD=1 rewrites it.
const traceGolden = "testdata/model_answers.txt"

// traceTopics is every topic name modelWorld uses.
func traceTopics() []string {
	out := []string{syncBrokerMemberPrefix + "x"}
	for b := range modelBrokers {
		out = append(out, syncBrokerMemberPrefix+"b"+strconv.Itoa(b))
	}
	for i := range 14 {
		out = append(out, "t"+strconv.Itoa(i))
	}
	return out
}

// traceAnswers renders the admin answers (topic lists in their Java order,
// cluster info, system topics) and every topic's lookup.
func traceAnswers(h *harness) string {
	var b strings.Builder
	fmt.Fprintf(&b, "all %v\n", h.AllTopics().TopicList)
	for _, c := range []string{"c1", "c2", "nope"} {
		fmt.Fprintf(&b, "cluster %s %v\n", c, h.TopicsByCluster(c).TopicList)
	}
	st := h.SystemTopics()
	fmt.Fprintf(&b, "system %v %q\n", st.TopicList, st.BrokerAddr)
	fmt.Fprintf(&b, "unit %v %v %v\n", h.UnitTopics().TopicList, h.HasUnitSubTopics().TopicList,
		h.HasUnitSubUnUnitTopics().TopicList)
	ci := h.ClusterInfo()
	fmt.Fprintf(&b, "clusterinfo %v %v\n", ci.BrokerAddrTable, ci.ClusterAddrTable)
	s := h.Stats()
	fmt.Fprintf(&b, "stats %d %d %d %d\n", s.Topics, s.Brokers, s.Clusters, s.LiveBrokers)
	for _, tp := range traceTopics() {
		snap := h.Lookup(tp)
		if snap == nil {
			fmt.Fprintf(&b, "%s none\n", tp)
			continue
		}
		r := *snap.Route
		r.TopicQueueMappingByBroker = nil // pointers: printed below
		fmt.Fprintf(&b, "%s %+v", tp, r)
		for _, bn := range slices.Sorted(maps.Keys(snap.Route.TopicQueueMappingByBroker)) {
			fmt.Fprintf(&b, " %s:%+v", bn, *snap.Route.TopicQueueMappingByBroker[bn])
		}
		if snap.ActingMaster != nil {
			fmt.Fprintf(&b, " acting %+v", snap.ActingMaster.BrokerDatas)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// traceRun runs modelWorld with seed for n steps and returns a line per
// step: seed, step, the digest of traceAnswers and the step's description.
func traceRun(t *testing.T, seed uint64, n int) []string {
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	w := &modelWorld{t: t, h: h, rng: rand.New(rand.NewPCG(seed, 21)), chans: map[string]*fakeChan{}}
	var out []string
	for op := range n {
		desc := w.step()
		sum := sha256.Sum256([]byte(traceAnswers(h)))
		out = append(out, fmt.Sprintf("%d %d %s %s", seed, op, hex.EncodeToString(sum[:8]), desc))
	}
	return out
}

// TestModelAnswersMatchRecording runs three fixed modelWorld scripts (1,200
// mutations of every kind) and compares every answer built from the route
// tables after each step with the recorded answers (traceGolden).
func TestModelAnswersMatchRecording(t *testing.T) {
	var got []string
	for seed := uint64(1); seed <= 3; seed++ {
		got = append(got, traceRun(t, seed, 400)...)
	}
	if os.Getenv("RMQ_RECORD") == "1" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(traceGolden, []byte(strings.Join(got, "\n")+"\n"), 0o644))
		return
	}
	f, err := os.Open(traceGolden)
	require.NoError(t, err)
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	require.NoError(t, sc.Err())
	require.Len(t, got, len(want))
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("line %d differs from the recording:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}
