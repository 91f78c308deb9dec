package route

import "testing"

// BenchmarkAllTopics lists the 100,000 topics of a table filled by 100
// brokers of 2,000 topics each (width 2) in Java's order: the
// topicQueueTable walk (tableOrder) and the TopicList set replay.
func BenchmarkAllTopics(b *testing.B) {
	m := NewManager(Options{})
	fillTable(b, m, 100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if len(m.AllTopics().TopicList) != 100_000 {
			b.Fatal("topics missing")
		}
	}
}
