package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Fixed parts of the benchmark topology.
const (
	benchCluster   = "BenchCluster"
	brokerVersion  = remoting.CurrentVersion // 479, as a 5.3 broker sends
	dvTimestamp    = 1700000000000           // DataVersion timestamp of every broker
	counterMarker  = 987654321098765         // placeholder counter in body templates
	registerTimout = 60 * time.Second
)

// broker is one benchmark broker (master, brokerId 0) and its topics.
type broker struct {
	name, addr, haAddr string
	topics             []string
}

// topology is brokers × topics, topic i living on brokers (i+k) mod B for
// k < width (as the Rust port's harness lays it out).
type topology struct {
	brokers []broker
	topics  []string
}

// newTopology lays out nTopics topics on nBrokers brokers, width each.
func newTopology(nTopics, nBrokers, width int) *topology {
	t := &topology{brokers: make([]broker, nBrokers), topics: make([]string, nTopics)}
	for i := range t.brokers {
		t.brokers[i] = broker{
			name:   fmt.Sprintf("bench-broker-%04d", i),
			addr:   "127.0.0.1:" + strconv.Itoa(30000+i),
			haAddr: "127.0.0.1:" + strconv.Itoa(40000+i),
		}
	}
	for i := range t.topics {
		t.topics[i] = fmt.Sprintf("BenchTopic-%06d", i)
		for k := 0; k < width; k++ {
			b := &t.brokers[(i+k)%nBrokers]
			b.topics = append(b.topics, t.topics[i])
		}
	}
	return t
}

// bodyTemplate is a broker's REGISTER_BROKER body split around its
// DataVersion counter, so a changed registration costs a concatenation.
type bodyTemplate struct {
	prefix, suffix []byte
}

// writeQueues is the write queue count of every topic (4 read queues too).
const writeQueues = 4

// newBodyTemplate encodes b's body (4 read/4 write queues, perm 6) with a
// marker counter and splits it there.
func newBodyTemplate(b *broker) (*bodyTemplate, error) {
	return newBodyTemplateQueues(b, writeQueues)
}

// newBodyTemplateQueues is newBodyTemplate with writeQueueNums w.
func newBodyTemplateQueues(b *broker, w int32) (*bodyTemplate, error) {
	rb := &wire.RegisterBody{
		DataVersion:  wire.DataVersion{Counter: counterMarker, Timestamp: dvTimestamp},
		TopicConfigs: make(map[string]wire.TopicConfig, len(b.topics)),
	}
	for _, name := range b.topics {
		rb.TopicConfigs[name] = wire.TopicConfig{
			TopicName: name, ReadQueueNums: 4, WriteQueueNums: w,
			Perm: wire.PermRead | wire.PermWrite, TopicFilterType: "SINGLE_TAG",
		}
	}
	enc, err := wire.EncodeRegisterBody(rb, brokerVersion, false)
	if err != nil {
		return nil, err
	}
	marker := []byte(strconv.FormatInt(counterMarker, 10))
	i := bytes.Index(enc, marker)
	if i < 0 || bytes.Count(enc, marker) != 1 {
		return nil, fmt.Errorf("counter marker not found once in the body of %s", b.name)
	}
	return &bodyTemplate{prefix: enc[:i], suffix: enc[i+len(marker):]}, nil
}

// body returns the body with DataVersion counter c, reusing dst.
func (t *bodyTemplate) body(dst []byte, c int64) []byte {
	dst = append(dst[:0], t.prefix...)
	dst = strconv.AppendInt(dst, c, 10)
	return append(dst, t.suffix...)
}

// registerRequest is REGISTER_BROKER of b with body, ext fields as a 5.3
// broker sends them (docs/protocol.md section 2.2).
func registerRequest(b *broker, payload []byte) *remoting.Command {
	ext := map[string]string{
		"brokerAddr":         b.addr,
		"brokerId":           "0",
		"brokerName":         b.name,
		"clusterName":        benchCluster,
		"haServerAddr":       b.haAddr,
		"enableActingMaster": "false",
		"compressed":         "false",
		"bodyCrc32":          strconv.Itoa(int(wire.CRC32(payload))),
	}
	return remoting.NewRequest(remoting.RegisterBroker, ext, payload)
}

// register sends one registration and checks it succeeded.
func register(c *remoting.Client, b *broker, payload []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), registerTimout)
	defer cancel()
	resp, err := c.Invoke(ctx, registerRequest(b, payload))
	if err != nil {
		return fmt.Errorf("register %s: %w", b.name, err)
	}
	if resp.Code != remoting.Success {
		return fmt.Errorf("register %s: code %d %q", b.name, resp.Code, resp.Remark)
	}
	return nil
}

// registerAll registers every broker once (counter 1) over c, one after
// the other, and returns the time spent in the round trips (body encoding
// excluded).
func registerAll(c *remoting.Client, t *topology) (time.Duration, error) {
	return registerLoad(c, t, 1, writeQueues)
}

// registerLoad registers every broker once over c with DataVersion counter
// counter and writeQueueNums w on every topic, one after the other, and
// returns the time spent in the round trips (body encoding excluded).
func registerLoad(c *remoting.Client, t *topology, counter int64, w int32) (time.Duration, error) {
	var spent time.Duration
	var buf []byte
	for i := range t.brokers {
		tmpl, err := newBodyTemplateQueues(&t.brokers[i], w)
		if err != nil {
			return 0, err
		}
		buf = tmpl.body(buf, counter)
		start := time.Now()
		if err := register(c, &t.brokers[i], buf); err != nil {
			return 0, err
		}
		spent += time.Since(start)
	}
	return spent, nil
}
