package wire

import (
	"strconv"

	"github.com/rmqgo/nameserver/internal/fastjson"
)

// objWriter appends one JSON object; the caller writes keys in the order
// fastjson would (alphabetical).
type objWriter struct {
	b []byte
	n int
}

func newObj(b []byte) *objWriter { return &objWriter{b: append(b, '{')} }

func (w *objWriter) key(k string) {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = fastjson.AppendString(w.b, k, fastjson.Default)
	w.b = append(w.b, ':')
}

func (w *objWriter) str(k, v string) {
	w.key(k)
	w.b = fastjson.AppendString(w.b, v, fastjson.Default)
}

func (w *objWriter) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *objWriter) end() []byte { return append(w.b, '}') }
