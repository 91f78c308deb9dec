package wire

import (
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/internal/yield"
)

// Request versions (MQVersion ordinals) that change the REGISTER_BROKER body.
const (
	// VersionRegisterBody (V3_0_11) and later send RegisterBrokerBody;
	// older brokers send a bare TopicConfigSerializeWrapper.
	VersionRegisterBody = 37
	// VersionMappingSection (V5_0_0) and later carry the static-topic
	// mapping section in compressed bodies.
	VersionMappingSection = 413
)

// DefaultMaxInflated caps the inflated size of a compressed register body
// in DecodeRegisterBody.
const DefaultMaxInflated = 256 << 20

// Topic filter type names (TopicFilterType.java).
const (
	FilterSingleTag = "SINGLE_TAG"
	FilterMultiTag  = "MULTI_TAG"
)

// DecodeRegisterBody decodes a REGISTER_BROKER body sent with request
// version and ext compressed, like DefaultRequestProcessor does: version >=
// 37 is a RegisterBrokerBody (zlib stream when compressed), older versions
// a TopicConfigSerializeWrapper JSON (compressed is then ignored). An empty
// body yields an empty table and DataVersion{0,0,0}. A body that sets no
// DataVersion timestamp (no dataVersion, null, or one without timestamp)
// yields DataVersionUnstamped: Java stamps such a version with the time it
// decodes the body. FilterServerList is nil only when the body says null or
// cannot carry it (version < 37).
func DecodeRegisterBody(body []byte, version int32, compressed bool) (*RegisterBody, error) {
	return DecodeRegisterBodyLimit(body, version, compressed, DefaultMaxInflated)
}

// DecodeRegisterBodyLimit is DecodeRegisterBody with an explicit cap on the
// inflated size of a compressed body.
func DecodeRegisterBodyLimit(body []byte, version int32, compressed bool, maxInflated int) (*RegisterBody, error) {
	switch {
	case version < 0:
		return nil, ErrVersion
	case len(body) == 0:
		return emptyRegisterBody(version), nil
	case version < VersionRegisterBody:
		return decodeRegisterJSON(body, false)
	case compressed:
		return decodeCompressed(body, version >= VersionMappingSection, maxInflated)
	}
	return decodeRegisterJSON(body, true)
}

// emptyRegisterBody is what Java builds for a register request without body.
func emptyRegisterBody(version int32) *RegisterBody {
	rb := &RegisterBody{TopicConfigs: map[string]TopicConfig{}}
	if version >= VersionRegisterBody {
		rb.FilterServerList = []string{}
	}
	return rb
}

// topicsHint guesses the topic count of a JSON body (about 170 bytes each)
// to presize the table without trusting anything in the body.
func topicsHint(n int) int { return min(n/160, 1<<20) }

// decodeRegisterJSON decodes a RegisterBrokerBody (full) or a bare
// TopicConfigSerializeWrapper (null sets WrapperNull).
func decodeRegisterJSON(body []byte, full bool) (*RegisterBody, error) {
	rb := &RegisterBody{DataVersionUnstamped: true} // until a dataVersion sets its timestamp
	rb.TopicConfigs, rb.Keys = newTopicTable(topicsHint(len(body)))
	if full {
		rb.FilterServerList = []string{}
	}
	null, err := decodeTopOrNull(body, func(s *scanner, key []byte) error {
		if !full {
			return decodeWrapperMember(s, key, rb, false)
		}
		return decodeRegisterMember(s, key, rb)
	})
	switch {
	case null && full: // Java's processor throws reading a null RegisterBrokerBody
		err = ErrNullBody
	case null && err == nil: // a null TopicConfigSerializeWrapper
		rb.WrapperNull, rb.TopicTableNull = true, true
	}
	if err != nil {
		return nil, err
	}
	return rb, nil
}

// newWrapper forgets what an earlier occurrence of the wrapper key put
// into rb: fastjson builds a new wrapper for each (a new DataVersion(),
// without timestamp, and an empty table).
func newWrapper(rb *RegisterBody) {
	rb.DataVersion, rb.DataVersionUnstamped, rb.DataVersionNull = DataVersion{}, true, false
	rb.TopicTableNull, rb.WrapperNull = false, false
	newTable(rb)
	rb.MappingInfos = nil
}

// decodeRegisterMember decodes one RegisterBrokerBody property.
func decodeRegisterMember(s *scanner, key []byte, rb *RegisterBody) (err error) {
	switch string(key) {
	case "filterServerList":
		rb.FilterServerList, err = s.stringList()
	case "topicConfigSerializeWrapper":
		newWrapper(rb)
		var present bool
		present, err = s.object(func(k []byte) error { return decodeWrapperMember(s, k, rb, true) })
		rb.WrapperNull = !present && err == nil
		rb.TopicTableNull = rb.TopicTableNull || rb.WrapperNull
	default:
		if name := registerBodyBean.match(key); name != nil {
			return decodeRegisterMember(s, name, rb)
		}
		err = s.skip()
	}
	return err
}

// newTable empties rb's topic table, keeping its memory: fastjson sets a
// new map for each occurrence of topicConfigTable.
func newTable(rb *RegisterBody) {
	clear(rb.TopicConfigs)
	clear(rb.Keys)
	rb.Keys, rb.TopicsDigest = rb.Keys[:0], TopicsDigest{}
}

// decodeWrapperMember decodes one TopicConfig(AndMapping)SerializeWrapper
// property; mapping enables topicQueueMappingInfoMap.
func decodeWrapperMember(s *scanner, key []byte, rb *RegisterBody, mapping bool) (err error) {
	switch {
	case string(key) == "dataVersion":
		var stamped bool
		rb.DataVersion, stamped, rb.DataVersionNull, err = decodeDataVersion(s)
		rb.DataVersionUnstamped = !stamped
	case string(key) == "topicConfigTable":
		newTable(rb)
		err = decodeTopicConfigTable(s, rb)
	case mapping && string(key) == "topicQueueMappingInfoMap":
		rb.MappingInfos, err = decodeMappingTable(s)
		if len(rb.MappingInfos) == 0 {
			rb.MappingInfos = nil
		}
	default:
		if name := wrapperBean.match(key); name != nil {
			return decodeWrapperMember(s, name, rb, mapping)
		}
		err = s.skip()
	}
	return err
}

// decodeTopicConfigTable reads topic -> TopicConfig into rb.TopicConfigs
// and rb.Keys, folding each entry into rb.TopicsDigest; a null value is
// ErrNullTopicConfig, a null table sets rb.TopicTableNull.
// It yields the processor every yieldEvery topics so a large body does not
// hold it for milliseconds.
func decodeTopicConfigTable(s *scanner, rb *RegisterBody) error {
	m, p := rb.TopicConfigs, &rb.TopicsDigest
	present, err := s.object(func(key []byte) error {
		k := string(key)
		tc, present, err := decodeTopicConfig(s, k)
		if err == nil && !present {
			return fmt.Errorf("%w: %q", ErrNullTopicConfig, k)
		}
		tc.Pos = int32(len(rb.Keys))
		m[k] = tc
		rb.Keys = append(rb.Keys, k)
		p.Add(tc)
		yield.At(p.Count())
		return err
	})
	if p.Count() != len(m) {
		*p = DigestTopics(m) // duplicate keys replaced earlier entries
		rb.Keys = firstOccurrences(rb.Keys, m)
	}
	rb.TopicTableNull = !present && err == nil
	return err
}

// firstOccurrences drops the repeats of keys in place, keeping each
// key's first place (a repeated key replaces the value of a Java map
// entry, which keeps its place), and sets the places in m.
func firstOccurrences(keys []string, m map[string]TopicConfig) []string {
	seen := make(map[string]struct{}, len(keys))
	out := keys[:0]
	for _, k := range keys {
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			tc := m[k]
			tc.Pos = int32(len(out))
			m[k] = tc
			out = append(out, k)
		}
	}
	clear(keys[len(out):])
	return out
}

// decodeTopicConfig reads a TopicConfig with Java's field defaults; the
// topic name shares key's memory when equal.
func decodeTopicConfig(s *scanner, key string) (TopicConfig, bool, error) {
	tc := TopicConfig{ReadQueueNums: 16, WriteQueueNums: 16, NameNull: true,
		Perm: PermRead | PermWrite, TopicFilterType: FilterSingleTag}
	present, err := s.object(func(k []byte) error { return decodeTopicConfigMember(s, k, key, &tc) })
	return tc, present, err
}

// decodeTopicConfigMember decodes one TopicConfig property; a null int
// keeps the field as it is.
func decodeTopicConfigMember(s *scanner, k []byte, key string, tc *TopicConfig) (err error) {
	switch string(k) {
	case "topicName":
		tc.TopicName, tc.NameNull, err = s.internedStr(key)
	case "readQueueNums":
		err = s.setInt32(&tc.ReadQueueNums)
	case "writeQueueNums":
		err = s.setInt32(&tc.WriteQueueNums)
	case "perm":
		err = s.setInt32(&tc.Perm)
	case "topicFilterType":
		tc.TopicFilterType, err = s.filterType()
	case "topicSysFlag":
		err = s.setInt32(&tc.TopicSysFlag)
	case "order":
		tc.Order, err = s.boolv()
	case "attributes":
		tc.Attributes, err = s.stringMap()
	default:
		if name := topicConfigBean.match(k); name != nil {
			return decodeTopicConfigMember(s, name, key, tc)
		}
		err = s.skip()
	}
	return err
}

// internedStr reads a string value, returning same (no copy) when equal,
// and whether it is null.
func (s *scanner) internedStr(same string) (string, bool, error) {
	text, _, isNull, err := s.scalar()
	if err != nil || isNull {
		return "", isNull, err
	}
	if string(text) == same {
		return same, false, nil
	}
	return string(text), false, nil
}

// filterType reads a TopicFilterType enum by name or ordinal; an unknown
// name is null ("") as in fastjson.
func (s *scanner) filterType() (string, error) {
	text, quoted, isNull, err := s.scalar()
	if err != nil || isNull {
		return "", err
	}
	if name, ok := filterTypeName(text); ok || quoted {
		return name, nil
	}
	v, ok := fastjson.ParseDecimal(text)
	switch {
	case ok && v == 0:
		return FilterSingleTag, nil
	case ok && v == 1:
		return FilterMultiTag, nil
	}
	return "", s.fail(ErrType)
}

// filterTypeName maps a known enum name to its constant.
func filterTypeName(text []byte) (string, bool) {
	switch string(text) {
	case FilterSingleTag:
		return FilterSingleTag, true
	case FilterMultiTag:
		return FilterMultiTag, true
	}
	return "", false
}

// CRC32 is UtilAll.crc32: the IEEE (zlib) CRC-32 of body with the sign bit
// cleared, as carried in REGISTER_BROKER's bodyCrc32. An empty body gives 0.
func CRC32(body []byte) int32 {
	return int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF)
}

// maxPooledTable is the largest topic table (in entries) kept for reuse:
// a cleared map keeps its capacity, and clearing costs as much.
const maxPooledTable = 1 << 16

// topicTable is a decoded body's topic table and its key order, recycled
// together.
type topicTable struct {
	m    map[string]TopicConfig
	keys []string
}

// tablePool recycles the topic tables of decoded register bodies. A
// 2,000-topic table is about 330 kB, as much as the body it was decoded
// from, and a broker sends one every registration.
var tablePool sync.Pool

// newTopicTable returns an empty topic table and key list: recycled ones
// when there are, else new ones sized for hint entries.
func newTopicTable(hint int) (map[string]TopicConfig, []string) {
	if t, ok := tablePool.Get().(*topicTable); ok {
		return t.m, t.keys
	}
	return make(map[string]TopicConfig, hint), make([]string, 0, hint)
}

// ReleaseRegisterBody hands the topic table and key list of a decoded body
// back for reuse by later decodes and sets rb.TopicConfigs and rb.Keys to
// nil. Call it only when nothing refers to the table any more:
// route.Manager.RegisterBroker keeps no reference to it once it returns.
// Strings and the other parts of the body are left alone.
func ReleaseRegisterBody(rb *RegisterBody) {
	if rb == nil || rb.TopicConfigs == nil {
		return
	}
	t := &topicTable{rb.TopicConfigs, rb.Keys}
	rb.TopicConfigs, rb.Keys = nil, nil
	if len(t.m) > maxPooledTable {
		return
	}
	clear(t.m)
	clear(t.keys)
	t.keys = t.keys[:0]
	tablePool.Put(t)
}
