//go:build embedded_controller

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/protobuf/encoding/protowire"
)

// ctlNodeLabel is the pprof label every goroutine of a node carries (its
// Raft transport, Raft and Controller are started under pprof.Do), so that
// a CPU profile of the process splits the three nodes' CPU.
const ctlNodeLabel = "ctlnode"

// withNodeLabel runs fn with the node's label: goroutines it starts, and
// theirs, inherit it.
func withNodeLabel(id string, fn func()) {
	pprof.Do(context.Background(), pprof.Labels(ctlNodeLabel, id), func(context.Context) { fn() })
}

// nodeProfile is a CPU profile of the process during a phase.
type nodeProfile struct{ buf bytes.Buffer }

// startNodeProfile starts the process's CPU profile (nil when one is
// already running).
func startNodeProfile() *nodeProfile {
	p := &nodeProfile{}
	if pprof.StartCPUProfile(&p.buf) != nil {
		return nil
	}
	return p
}

// stop ends the profile and returns its CPU time by node label ("" for
// samples of no node: the runtime's own work such as background GC, and
// this process's brokers and probe) and the raw profile.
func (p *nodeProfile) stop() (map[string]time.Duration, []byte, error) {
	pprof.StopCPUProfile()
	by, err := cpuByLabel(p.buf.Bytes(), ctlNodeLabel)
	return by, p.buf.Bytes(), err
}

// cpuByLabel sums a gzipped pprof CPU profile's sample values (the last
// sample type: CPU nanoseconds) by the value of label key.
func cpuByLabel(gz []byte, key string) (map[string]time.Duration, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var strs []string
	var samples [][]byte
	err = eachField(raw, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		switch {
		case num == 2 && typ == protowire.BytesType:
			samples = append(samples, v)
		case num == 6 && typ == protowire.BytesType:
			strs = append(strs, string(v))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string]time.Duration{}
	for _, s := range samples {
		val, label, err := sampleCPU(s, strs, key)
		if err != nil {
			return nil, err
		}
		out[label] += time.Duration(val)
	}
	return out, nil
}

// sampleCPU returns one sample's last value and its label key's value.
func sampleCPU(s []byte, strs []string, key string) (int64, string, error) {
	var vals []int64
	var label string
	err := eachField(s, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch {
		case num == 2 && typ == protowire.VarintType:
			vals = append(vals, int64(x))
		case num == 2 && typ == protowire.BytesType:
			for len(v) > 0 {
				n, k := protowire.ConsumeVarint(v)
				if k < 0 {
					return protowire.ParseError(k)
				}
				vals, v = append(vals, int64(n)), v[k:]
			}
		case num == 3 && typ == protowire.BytesType:
			k, val, err := labelOf(v, strs)
			if err == nil && k == key {
				label = val
			}
			return err
		}
		return nil
	})
	if err != nil {
		return 0, "", err
	}
	if len(vals) == 0 {
		return 0, "", errors.New("cpu profile: a sample without values")
	}
	return vals[len(vals)-1], label, nil
}

// labelOf decodes a Label message (key and str are string-table indexes).
func labelOf(b []byte, strs []string) (key, val string, err error) {
	str := func(i uint64) string {
		if i < uint64(len(strs)) {
			return strs[i]
		}
		return ""
	}
	err = eachField(b, func(num protowire.Number, typ protowire.Type, _ []byte, x uint64) error {
		if typ == protowire.VarintType && num == 1 {
			key = str(x)
		} else if typ == protowire.VarintType && num == 2 {
			val = str(x)
		}
		return nil
	})
	return key, val, err
}

// eachField calls fn for each top-level field of a protobuf message: v is
// the payload of a bytes field, x the value of a varint.
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("cpu profile: %w", protowire.ParseError(n))
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("cpu profile: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}

// fillByNode stops prof (nil: nothing) and fills the per-node CPU figures
// of a window of wall time whose Raft leader was leader.
func (h *ctlHB) fillByNode(prof *nodeProfile, leader string, wall time.Duration, path string, log hclog.Logger) {
	if prof == nil {
		return
	}
	by, raw, err := prof.stop()
	if path != "" {
		if werr := os.WriteFile(path, raw, 0o644); werr != nil {
			log.Warn("ctlstorm: writing the hb phase's cpu profile", "error", werr)
		}
	}
	if err != nil {
		log.Warn("ctlstorm: reading the hb phase's cpu profile", "error", err)
		return
	}
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / wall.Seconds() }
	h.NodeCPUPct = map[string]float64{}
	for node, d := range by {
		if node != "" {
			h.NodeCPUPct[node] = pct(d)
		}
	}
	h.LeaderCPUPct, h.UnlabeledCPUPct = pct(by[leader]), pct(by[""])
	var labelled time.Duration
	for node, d := range by {
		if node != "" {
			labelled += d
		}
	}
	if labelled > 0 {
		h.LeaderSharePct = h.ProcessCPUPct * by[leader].Seconds() / labelled.Seconds()
	}
	// the leader receives every broker's beats plus the probe's
	if beats := h.BeatsPerSNode*wall.Seconds() + float64(h.Latency904.Count); beats > 0 {
		h.LeaderPerBeatUS = float64(by[leader].Microseconds()) / beats
	}
}

// startPhaseProfile starts a phase's CPU profile when -ctl-profile names a
// prefix (nil otherwise, or when a profile is already running).
func startPhaseProfile(prefix string) *nodeProfile {
	if prefix == "" {
		return nil
	}
	return startNodeProfile()
}

// write stops the profile and writes it to <prefix>.<phase>.pprof; a
// failure is printed, never fatal (the figures stand without it).
func (p *nodeProfile) write(prefix, phase string) {
	if p == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := os.WriteFile(prefix+"."+phase+".pprof", p.buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "ctlstorm: writing the %s phase's cpu profile: %v\n", phase, err)
	}
}
