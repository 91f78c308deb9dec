package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// scrapeTimeout bounds one read of the NameServer's /metrics.
const scrapeTimeout = 5 * time.Second

// Go runtime families of client_golang's Go collector read after a load.
const (
	famHeapAlloc = "go_memstats_heap_alloc_bytes" // allocated heap objects, garbage not yet swept included
	famNextGC    = "go_memstats_next_gc_bytes"    // heap target of the next GC
	famGOGC      = "go_gc_gogc_percent"
	famMemLimit  = "go_gc_gomemlimit_bytes"
)

// noMemLimit is GOMEMLIMIT's value when none is set (math.MaxInt64), as a
// float64 exposition value.
const noMemLimit = float64(1<<63 - 1)

// heapStat is the NameServer's Go heap as its metrics endpoint reports it.
type heapStat struct {
	AllocMB  float64 `json:"heap_alloc_mb"`
	NextGCMB float64 `json:"next_gc_mb"`
	// LiveMB is the heap marked live by the last GC, derived from the GC
	// target: next_gc / (1 + GOGC/100); 0 (unknown) when a GOMEMLIMIT is
	// set, as the target then follows the limit.
	LiveMB float64 `json:"live_at_last_gc_mb"`
}

// scrapeHeap reads the Go heap figures from http://addr/metrics, without
// any proxy.
func scrapeHeap(addr string) (*heapStat, error) {
	c := &http.Client{Timeout: scrapeTimeout, Transport: &http.Transport{Proxy: nil}}
	defer c.CloseIdleConnections()
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return parseHeap(resp.Body)
}

// parseHeap reads the heap families from a text exposition.
func parseHeap(r io.Reader) (*heapStat, error) {
	vals := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		if !ok || (name != famHeapAlloc && name != famNextGC && name != famGOGC && name != famMemLimit) {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		vals[name] = f
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	alloc, ok1 := vals[famHeapAlloc]
	next, ok2 := vals[famNextGC]
	if !ok1 || !ok2 {
		return nil, errors.New("no " + famHeapAlloc + " or " + famNextGC + " in /metrics")
	}
	h := &heapStat{AllocMB: alloc / 1e6, NextGCMB: next / 1e6}
	gogc, ok := vals[famGOGC]
	if !ok || gogc <= 0 {
		gogc = 100
	}
	if limit, ok := vals[famMemLimit]; !ok || limit >= noMemLimit {
		h.LiveMB = next / (1 + gogc/100) / 1e6
	}
	return h, nil
}
