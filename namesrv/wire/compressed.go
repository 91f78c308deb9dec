package wire

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/internal/yield"
)

// inflate decompresses a zlib stream, failing once more than limit bytes
// come out. A stream that breaks off (bad checksum, truncation) keeps what
// was inflated so far: like Java's InflaterInputStream, decoding only fails
// if a needed byte is missing.
func inflate(body []byte, limit int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCompressed, err)
	}
	raw, _ := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
	if len(raw) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return raw, nil
}

// frameReader reads the big-endian length-prefixed sections of an
// inflated register body.
type frameReader struct {
	data []byte
	pos  int
}

// truncated reports a section that runs past the inflated data.
func (r *frameReader) truncated() error {
	return fmt.Errorf("%w: truncated at offset %d", ErrCompressed, r.pos)
}

// int32 reads one big-endian int.
func (r *frameReader) int32() (int32, error) {
	if len(r.data)-r.pos < 4 {
		return 0, r.truncated()
	}
	v := int32(binary.BigEndian.Uint32(r.data[r.pos:]))
	r.pos += 4
	return v, nil
}

// chunk reads an int length and that many bytes.
func (r *frameReader) chunk() ([]byte, error) {
	n, err := r.int32()
	if err != nil {
		return nil, err
	}
	if n < 0 || int(n) > len(r.data)-r.pos {
		return nil, r.truncated()
	}
	b := r.data[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// count reads an element count: negative counts mean none (Java's loop does
// not run) and a count that cannot fit in the remaining bytes is an error.
func (r *frameReader) count() (int, error) {
	n, err := r.int32()
	if err != nil || n <= 0 {
		return 0, err
	}
	if int(n) > (len(r.data)-r.pos)/4 {
		return 0, r.truncated()
	}
	return int(n), nil
}

// decodeCompressed decodes the zlib form of RegisterBrokerBody
// (docs/protocol.md section 3.5).
func decodeCompressed(body []byte, withMapping bool, limit int) (*RegisterBody, error) {
	raw, err := inflate(body, limit)
	if err != nil {
		return nil, err
	}
	return decodeInflated(raw, withMapping)
}

// decodeInflated decodes the sections of an inflated register body.
func decodeInflated(raw []byte, withMapping bool) (*RegisterBody, error) {
	var err error
	r := &frameReader{data: raw}
	rb := &RegisterBody{}
	if err := r.dataVersion(rb); err != nil {
		return nil, err
	}
	if err = r.topicConfigs(rb); err != nil {
		return nil, err
	}
	if rb.FilterServerList, err = r.filterServers(); err != nil {
		return nil, err
	}
	if withMapping {
		rb.MappingInfos, err = r.mappings()
	}
	if err != nil {
		return nil, err
	}
	return rb, nil
}

// dataVersion reads the DataVersion JSON section into rb. An empty or
// null section is a null DataVersion (Java sets the null that
// DataVersion.decode gives).
func (r *frameReader) dataVersion(rb *RegisterBody) error {
	b, err := r.chunk()
	if err != nil {
		return err
	}
	got, stamped, null, err := decodeDataVersionOrNull(b)
	if err != nil {
		return err
	}
	rb.DataVersion, rb.DataVersionUnstamped, rb.DataVersionNull = *got, !stamped, null
	return nil
}

// topicConfigs reads the topic count and TopicConfig.encode() lines into
// rb.TopicConfigs, keyed by topic name (a later duplicate wins, in the
// first one's place in rb.Keys), and digests them into rb.TopicsDigest.
func (r *frameReader) topicConfigs(rb *RegisterBody) error {
	n, err := r.count()
	if err != nil {
		return err
	}
	m, keys := newTopicTable(n)
	p := &rb.TopicsDigest
	rb.TopicConfigs = m
	for range n {
		line, err := r.chunk()
		if err != nil {
			return err
		}
		tc, err := parseTopicConfigLine(string(line))
		if err != nil {
			return err
		}
		tc.Pos = int32(len(keys))
		m[tc.TopicName] = tc
		keys = append(keys, tc.TopicName)
		p.Add(tc)
		yield.At(p.Count())
	}
	if p.Count() != len(m) {
		*p = DigestTopics(m) // duplicates replaced earlier entries
		keys = firstOccurrences(keys, m)
	}
	rb.Keys = keys
	return nil
}

// filterServers reads the filter server JSON array; like Java, unparsable
// JSON gives an empty list and null gives nil.
func (r *frameReader) filterServers() ([]string, error) {
	b, err := r.chunk()
	if err != nil {
		return nil, err
	}
	s := newScanner(b)
	if s.peek() == 0 {
		return nil, nil
	}
	list, err := s.stringList()
	if err != nil || s.end() != nil {
		return []string{}, nil
	}
	return list, nil
}

// mappings reads the TopicQueueMappingInfo section, keyed by info.topic.
func (r *frameReader) mappings() (map[string]*TopicQueueMappingInfo, error) {
	n, err := r.count()
	if err != nil || n == 0 {
		return nil, err
	}
	m := make(map[string]*TopicQueueMappingInfo, n)
	for range n {
		info, err := r.mappingInfo()
		if err != nil {
			return nil, err
		}
		m[info.Topic] = info
	}
	return m, nil
}

// mappingInfo reads one TopicQueueMappingInfo JSON; a null one or one
// without topic fails, as Java's ConcurrentHashMap.put(null, ..) does.
func (r *frameReader) mappingInfo() (*TopicQueueMappingInfo, error) {
	b, err := r.chunk()
	if err != nil {
		return nil, err
	}
	s := newScanner(b)
	info, err := decodeMappingInfo(s)
	if err == nil {
		err = s.end()
	}
	if err == nil && (info == nil || info.Topic == "") {
		err = fmt.Errorf("%w: mapping info without topic", ErrNullBody)
	}
	return info, err
}

// parseTopicConfigLine decodes TopicConfig.encode() output:
// "<name> <read> <write> <perm> <filterType> [attributesJson]", split on
// single spaces as Java's String.split(" ") does. Attributes that do not
// parse are ignored; topicSysFlag and order are not carried.
func parseTopicConfigLine(line string) (TopicConfig, error) {
	var f [5]string
	rest := line
	for i := range f {
		j := strings.IndexByte(rest, ' ')
		if j < 0 && i < 4 {
			return TopicConfig{}, fmt.Errorf("%w: %q", ErrTopicConfig, line)
		}
		if j < 0 {
			f[i], rest = rest, ""
			break
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	tc := TopicConfig{TopicName: f[0]}
	var ok [4]bool
	tc.ReadQueueNums, ok[0] = parseJavaInt(f[1])
	tc.WriteQueueNums, ok[1] = parseJavaInt(f[2])
	tc.Perm, ok[2] = parseJavaInt(f[3])
	tc.TopicFilterType, ok[3] = filterTypeName([]byte(f[4]))
	if ok != [4]bool{true, true, true, true} {
		return TopicConfig{}, fmt.Errorf("%w: %q", ErrTopicConfig, line)
	}
	tc.Attributes = parseAttributes(rest)
	return tc, nil
}

// parseJavaInt is Integer.parseInt for ASCII input.
func parseJavaInt(s string) (int32, bool) {
	v, ok := fastjson.ParseDecimal([]byte(s))
	if !ok || v != int64(int32(v)) {
		return 0, false
	}
	return int32(v), true
}

// parseAttributes parses the sixth space-separated field (up to the next
// space) as a string map; failures and {} give nil.
func parseAttributes(rest string) map[string]string {
	if j := strings.IndexByte(rest, ' '); j >= 0 {
		rest = rest[:j]
	}
	if rest == "" {
		return nil
	}
	s := newScanner([]byte(rest))
	m, err := s.stringMap()
	if err != nil || s.end() != nil {
		return nil
	}
	return m
}
