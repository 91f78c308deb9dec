package remoting

import (
	"encoding/binary"
	"fmt"
	"math"
)

// rocketMQFixedLen is the size of a ROCKETMQ header without remark and
// extFields: code 2, language 1, version 2, opaque 4, flag 4, remark length
// 4, extFields length 4.
const rocketMQFixedLen = 21

// appendRocketMQHeader appends c's header in the ROCKETMQ binary layout
// (RocketMQSerializable.java). Code and version are truncated to int16 as
// Java does; "" strings are written as length 0 (null); entries with an empty
// key are skipped; entries are in Java HashMap order.
func appendRocketMQHeader(dst []byte, c *Command) ([]byte, error) {
	lang, _ := LanguageCode(c.Language)
	dst = binary.BigEndian.AppendUint16(dst, uint16(c.Code))
	dst = append(dst, lang)
	dst = binary.BigEndian.AppendUint16(dst, uint16(c.Version))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Opaque))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Flag))
	if len(c.Remark) > math.MaxInt32 {
		return dst, fmt.Errorf("%w: remark of %d bytes", ErrHeaderTooLarge, len(c.Remark))
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Remark)))
	dst = append(dst, c.Remark...)
	return appendRocketMQExt(dst, c.ExtFields)
}

// appendRocketMQExt appends the extFields length and entries.
func appendRocketMQExt(dst []byte, m map[string]string) ([]byte, error) {
	lenAt := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var arr [16]string
	for _, k := range extOrder(arr[:0], m) {
		v := m[k]
		if k == "" {
			continue
		}
		if len(k) > math.MaxInt16 || len(v) > math.MaxInt32 {
			return dst, fmt.Errorf("%w: ext entry %.32q too long", ErrHeaderTooLarge, k)
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(k)))
		dst = append(dst, k...)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
		dst = append(dst, v...)
	}
	extLen := len(dst) - lenAt - 4
	if extLen > math.MaxInt32 {
		return dst, fmt.Errorf("%w: extFields of %d bytes", ErrHeaderTooLarge, extLen)
	}
	binary.BigEndian.PutUint32(dst[lenAt:], uint32(extLen))
	return dst, nil
}

// headerReader reads big-endian fields from a ROCKETMQ header.
type headerReader struct {
	b []byte
	i int
}

func (r *headerReader) fail(what string) error {
	return fmt.Errorf("%w: rocketmq header: %s at offset %d of %d", ErrBadHeader, what, r.i, len(r.b))
}

func (r *headerReader) u16() uint16 {
	v := binary.BigEndian.Uint16(r.b[r.i:])
	r.i += 2
	return v
}

func (r *headerReader) u32() uint32 {
	v := binary.BigEndian.Uint32(r.b[r.i:])
	r.i += 4
	return v
}

// bytes returns the next n bytes, or false if they are not there.
func (r *headerReader) bytes(n int) ([]byte, bool) {
	if n < 0 || n > len(r.b)-r.i {
		return nil, false
	}
	v := r.b[r.i : r.i+n]
	r.i += n
	return v, true
}

// decodeRocketMQHeader decodes a ROCKETMQ binary header into c. A zero
// length string is null (""); a null key or value drops the entry; an
// unknown language code gives ""; a non-positive extFields length means no
// map (as in Java); lengths past the header are errors.
func decodeRocketMQHeader(h []byte, c *Command) error {
	r := headerReader{b: h}
	if len(h) < rocketMQFixedLen {
		return r.fail("short fixed part")
	}
	c.Code = int32(int16(r.u16()))
	c.Language = LanguageName(int(h[2]))
	r.i++
	c.Version = int32(int16(r.u16()))
	c.Opaque = int32(r.u32())
	c.Flag = int32(r.u32())
	remark, ok := r.bytes(int(int32(r.u32())))
	if !ok {
		return r.fail("bad remark length")
	}
	c.Remark = string(remark)
	if len(h)-r.i < 4 {
		return r.fail("missing extFields length")
	}
	extLen := int(int32(r.u32()))
	if extLen <= 0 {
		return nil
	}
	ext, ok := r.bytes(extLen)
	if !ok {
		return r.fail("bad extFields length")
	}
	m, err := decodeRocketMQExt(ext)
	c.ExtFields = m
	return err
}

// decodeRocketMQExt decodes the extFields entries.
func decodeRocketMQExt(b []byte) (map[string]string, error) {
	r := headerReader{b: b}
	m := make(map[string]string, 4)
	for r.i < len(b) {
		if len(b)-r.i < 2 {
			return nil, r.fail("short key length")
		}
		k, ok := r.bytes(int(int16(r.u16())))
		if !ok || len(b)-r.i < 4 {
			return nil, r.fail("bad key length")
		}
		v, ok := r.bytes(int(int32(r.u32())))
		if !ok {
			return nil, r.fail("bad value length")
		}
		if len(k) == 0 {
			continue
		}
		if len(v) == 0 {
			delete(m, string(k))
			continue
		}
		m[internExtKey(k)] = internExtValue(v)
	}
	if len(m) == 0 {
		return nil, nil // only null entries: no usable map
	}
	return m, nil
}
