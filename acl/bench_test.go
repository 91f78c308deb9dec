package acl

import (
	"path/filepath"
	"testing"

	"github.com/rmqgo/nameserver/remoting"
)

// BenchmarkCheck measures the check of a signed route lookup (a Java
// 5.x client's fields) and of an anonymous one.
func BenchmarkCheck(b *testing.B) {
	path := filepath.Join(b.TempDir(), "plain_acl.yml")
	writeFile(b, path, testAccounts)
	a, err := New(Options{Path: path, AnonymousRead: true})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	signedReq := remoting.NewRequest(remoting.GetRouteinfoByTopic,
		map[string]string{"topic": "TopicTest", "acceptStandardJsonOnly": "true", "lo": "true", "ns": "ns1"}, nil)
	Sign(signedReq, "readerKey1", "readerSecret1", "")
	anon := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "TopicTest"}, nil)
	for _, bc := range []struct {
		name string
		req  *remoting.Command
	}{{"signed", signedReq}, {"anonymous", anon}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := a.Check("10.0.0.1:5000", bc.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
