package namesrv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/remoting"
)

// header reads typed fields from a request's extFields with Java's rules
// (CommandCustomHeader decoding): strings as they are, numbers parsed as
// decimal, booleans true only for a case-insensitive "true". The first
// failure is kept and reported by err().
type header struct {
	ext   map[string]string
	first error
}

func newHeader(req *remoting.Command) *header {
	return &header{ext: req.ExtFields}
}

// str returns an optional string field.
func (h *header) str(key string) string {
	return h.ext[key]
}

// required returns a string field that must be present.
func (h *header) required(key string) string {
	v, ok := h.ext[key]
	if !ok {
		h.fail(fmt.Errorf("%w: %s", ErrMissingField, key))
	}
	return v
}

// int64 returns an int64 field; def when absent.
func (h *header) int64(key string, def int64, required bool) int64 {
	v, ok := h.ext[key]
	if !ok {
		if required {
			h.fail(fmt.Errorf("%w: %s", ErrMissingField, key))
		}
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		h.fail(fmt.Errorf("%w: %s=%q is not a number", ErrBadField, key, v))
		return def
	}
	return n
}

// boolPtr returns a Boolean field, nil when absent.
func (h *header) boolPtr(key string) *bool {
	v, ok := h.ext[key]
	if !ok {
		return nil
	}
	b := strings.EqualFold(v, "true")
	return &b
}

// bool returns a boolean field, false when absent.
func (h *header) bool(key string) bool {
	return strings.EqualFold(h.ext[key], "true")
}

func (h *header) fail(err error) {
	if h.first == nil {
		h.first = err
	}
}

func (h *header) err() error {
	return h.first
}
