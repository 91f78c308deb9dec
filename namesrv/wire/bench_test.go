package wire

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchRoute is a route over four broker groups of three replicas each.
func benchRoute() *TopicRouteData {
	r := &TopicRouteData{FilterServerTable: map[string][]string{}}
	for i := range 4 {
		name := fmt.Sprintf("broker-%c", 'a'+i)
		r.BrokerDatas = append(r.BrokerDatas, BrokerData{Cluster: "DefaultCluster", BrokerName: name,
			BrokerAddrs: map[int64]string{0: fmt.Sprintf("10.0.%d.1:10911", i),
				1: fmt.Sprintf("10.0.%d.2:10911", i), 2: fmt.Sprintf("10.0.%d.3:10911", i)}})
		r.QueueDatas = append(r.QueueDatas, QueueData{BrokerName: name, ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6})
	}
	return r
}

func BenchmarkAppendTopicRouteData(b *testing.B) {
	r := benchRoute()
	for _, c := range []struct {
		name string
		f    Flavour
	}{{"default", FastjsonDefault}, {"standard", Standard}} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendTopicRouteData(buf[:0], r, c.f)
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

// benchRegisterBody encodes a register body of n topics.
func benchRegisterBody(b *testing.B, n int, compressed bool) []byte {
	body, err := EncodeRegisterBody(sampleRegister(n), 479, compressed)
	require.NoError(b, err)
	return body
}

// benchDecode measures decoding one register body; release hands each
// table back as the NameServer does after applying the registration.
func benchDecode(b *testing.B, n int, compressed, release bool) {
	body := benchRegisterBody(b, n, compressed)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rb, err := DecodeRegisterBody(body, 479, compressed)
		if err != nil || len(rb.TopicConfigs) != n {
			b.Fatal(err)
		}
		if release {
			ReleaseRegisterBody(rb)
		}
	}
}

func BenchmarkDecodeRegisterBody10kTopics(b *testing.B) {
	b.Run("json", func(b *testing.B) { benchDecode(b, 10_000, false, false) })
	b.Run("compressed", func(b *testing.B) { benchDecode(b, 10_000, true, false) })
	b.Run("json-released", func(b *testing.B) { benchDecode(b, 10_000, false, true) })
}

func BenchmarkDecodeRegisterBody100kTopics(b *testing.B) {
	b.Run("json", func(b *testing.B) { benchDecode(b, 100_000, false, false) })
	b.Run("compressed", func(b *testing.B) { benchDecode(b, 100_000, true, false) })
}
