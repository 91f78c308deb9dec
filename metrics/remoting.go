package metrics

import (
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rmqgo/nameserver/remoting"
)

// Remoting records the traffic of one remoting server under a name prefix
// (rocketmq_namesrv or rocketmq_controller). It implements
// remoting.Observer; install it as remoting.ServerConfig.Observer.
type Remoting struct {
	requests *CounterVec
	latency  *HistogramVec
	open     prometheus.Gauge
	opened   prometheus.Counter
	rejected *CounterVec
	cache    sync.Map // seriesKey → *requestSeries
}

var _ remoting.Observer = (*Remoting)(nil)

type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// NewRemoting registers the request, connection and frame families of
// prefix in reg:
//
//	<prefix>_requests_total{code,response_code}
//	<prefix>_request_duration_seconds{code,response_code}  (histogram)
//	<prefix>_connections                                  (open now)
//	<prefix>_connections_opened_total
//	<prefix>_frames_rejected_total{reason}
func NewRemoting(reg *Registry, prefix string) *Remoting {
	r := &Remoting{
		requests: NewCounterVec(prefix+"_requests_total",
			"Requests handled, by request code and response code.", "code", "response_code"),
		latency: NewHistogramVec(prefix+"_request_duration_seconds",
			"Request handling time, by request code and response code.", LatencyBuckets, "code", "response_code"),
		rejected: NewCounterVec(prefix+"_frames_rejected_total",
			"Connections closed on a malformed frame, by reason.", "reason"),
	}
	mustValidName(prefix+"_connections", nil)
	r.open = prometheus.NewGauge(prometheus.GaugeOpts{Name: prefix + "_connections",
		Help: "Remoting connections open now."})
	r.opened = prometheus.NewCounter(prometheus.CounterOpts{Name: prefix + "_connections_opened_total",
		Help: "Remoting connections accepted."})
	reg.Register(r.requests, r.latency, r.open, r.opened, r.rejected)
	return r
}

// RequestDone implements remoting.Observer.
func (r *Remoting) RequestDone(code, respCode int32, d time.Duration) {
	s := r.seriesOf(code, respCode)
	s.count.Inc()
	observeDuration(s.latency, d)
}

// seriesOf returns the cached series of a code pair; unknown codes share
// the LabelOther series, so the cache stays bounded.
func (r *Remoting) seriesOf(code, respCode int32) *requestSeries {
	c, rc := RequestCodeLabel(code), ResponseCodeLabel(respCode)
	key := seriesKey(code, respCode, c, rc)
	if s, ok := r.cache.Load(key); ok {
		return s.(*requestSeries)
	}
	s := &requestSeries{count: r.requests.With(c, rc), latency: r.latency.With(c, rc)}
	actual, _ := r.cache.LoadOrStore(key, s)
	return actual.(*requestSeries)
}

// seriesKey packs a code pair, folding codes labelled LabelOther into one.
func seriesKey(code, respCode int32, codeLabel, respLabel string) uint64 {
	if codeLabel == LabelOther {
		code = math.MinInt32
	}
	if respLabel == LabelOther {
		respCode = math.MinInt32
	}
	return uint64(uint32(code))<<32 | uint64(uint32(respCode))
}

// FrameRejected implements remoting.Observer.
func (r *Remoting) FrameRejected(reason string) {
	r.rejected.With(boundedLabel(reason, frameReasons...)).Inc()
}

// frameReasons are the reasons remoting reports.
var frameReasons = []string{
	"frame_too_large", "bad_frame_length", "frame_truncated", "bad_serialize_type", "bad_header",
}

// ConnOpened implements remoting.Observer.
func (r *Remoting) ConnOpened() {
	r.open.Add(1)
	r.opened.Inc()
}

// ConnClosed implements remoting.Observer.
func (r *Remoting) ConnClosed() { r.open.Add(-1) }
