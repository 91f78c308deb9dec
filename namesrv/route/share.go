package route

// shareMax is the largest number of broker groups a route may have for its
// BrokerData list to be shared with other topics.
const shareMax = 8

// shareCap bounds the number of shared lists kept between resets.
const shareCap = 1 << 14

// shareKey identifies a BrokerData list by the identity of the published
// BrokerData of each group, in queue order. A group's published copy is
// replaced whenever its data changes, which gives a new key.
type shareKey [shareMax]*BrokerData

// sharedRoute is the part of a TopicRouteData that depends only on the
// broker groups: topics on the same groups share it (published data is
// immutable), which saves an allocation and about 72 bytes per group per
// topic.
type sharedRoute struct {
	brokers []BrokerData
	filters map[string][]string
}

// shareTable holds the shared lists. Only the coordinator uses it. The keys
// keep their BrokerData alive, so an address is never reused while keyed.
type shareTable struct {
	m map[shareKey]sharedRoute
}

// reset drops every shared list (existing snapshots keep theirs). The
// coordinator calls it whenever a group's BrokerData or filters change.
func (s *shareTable) reset() { s.m = nil }

func (s *shareTable) put(k shareKey, r sharedRoute) {
	if s.m == nil || len(s.m) >= shareCap {
		s.m = make(map[shareKey]sharedRoute)
	}
	s.m[k] = r
}

// routeBrokers returns the BrokerData list (in queue order, groups without
// BrokerData skipped) and filter view of a route over qs, shared with the
// other topics on the same groups; ok is false when no group has
// BrokerData.
func (m *Manager) routeBrokers(qs []QueueData) (r sharedRoute, ok bool) {
	if len(qs) > shareMax {
		return m.newSharedRoute(m.publishedOf(qs, nil))
	}
	var k shareKey
	n := 0
	for _, q := range qs {
		if b := m.brokers[q.BrokerName]; b != nil {
			k[n] = b.published()
			n++
		}
	}
	if r, ok = m.shared.m[k]; ok || n == 0 {
		return r, ok
	}
	r, ok = m.newSharedRoute(k[:n])
	m.shared.put(k, r)
	return r, ok
}

// publishedOf appends the published BrokerData of the groups of qs that
// have one.
func (m *Manager) publishedOf(qs []QueueData, dst []*BrokerData) []*BrokerData {
	for _, q := range qs {
		if b := m.brokers[q.BrokerName]; b != nil {
			dst = append(dst, b.published())
		}
	}
	return dst
}

// newSharedRoute copies pubs into a new list and builds its filter view.
func (m *Manager) newSharedRoute(pubs []*BrokerData) (sharedRoute, bool) {
	if len(pubs) == 0 {
		return sharedRoute{}, false
	}
	bds := make([]BrokerData, len(pubs))
	for i, p := range pubs {
		bds[i] = *p
	}
	return sharedRoute{brokers: bds, filters: m.filterView(bds)}, true
}
