package wire

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/internal/javahash"
)

// EncodeRegisterBody builds a REGISTER_BROKER body the way a broker of the
// given version would: a TopicConfigSerializeWrapper JSON below version 37,
// else a RegisterBrokerBody as JSON or, when compressed, as the zlib stream
// (mapping section from version 413). Maps are written with sorted keys.
// Nil and empty values keep their decoded meaning: a nil FilterServerList
// and an empty TopicFilterType are written as JSON null (the compressed form
// writes SINGLE_TAG for the latter, since Java cannot read "null" there).
func EncodeRegisterBody(b *RegisterBody, version int32, compressed bool) ([]byte, error) {
	switch {
	case version < 0:
		return nil, ErrVersion
	case version < VersionRegisterBody:
		return appendWrapper(nil, b, false), nil
	case compressed:
		return encodeCompressed(b, version >= VersionMappingSection)
	}
	dst := []byte(`{"filterServerList":`)
	if b.FilterServerList != nil {
		dst = appendStringList(dst, b.FilterServerList, FastjsonDefault)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"topicConfigSerializeWrapper":`...)
	dst = appendWrapper(dst, b, true)
	return append(dst, '}'), nil
}

// appendWrapper appends a TopicConfigSerializeWrapper, or with full the
// TopicConfigAndMappingSerializeWrapper of a 5.x broker.
func appendWrapper(dst []byte, b *RegisterBody, full bool) []byte {
	dst = append(dst, `{"dataVersion":`...)
	dst = AppendDataVersion(dst, &b.DataVersion)
	if full {
		dst = append(dst, `,"mappingDataVersion":`...)
		dst = AppendDataVersion(dst, &DataVersion{Timestamp: b.DataVersion.Timestamp})
	}
	dst = append(dst, `,"topicConfigTable":{`...)
	for i, name := range b.KeyOrder() {
		dst = appendComma(dst, i)
		dst = fastjson.AppendString(dst, name, FastjsonDefault)
		dst = append(dst, ':')
		tc := b.TopicConfigs[name]
		dst = appendTopicConfig(dst, &tc)
	}
	dst = append(dst, '}')
	if full {
		dst = append(dst, `,"topicQueueMappingDetailMap":{},"topicQueueMappingInfoMap":{`...)
		dst = appendMappingInfos(dst, b.MappingInfos)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// sortedKeys returns the keys of m sorted like a Java TreeMap.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, javahash.Compare)
	return keys
}

// appendMappingInfos appends the members of topicQueueMappingInfoMap.
func appendMappingInfos(dst []byte, m map[string]*TopicQueueMappingInfo) []byte {
	n := 0
	for _, topic := range sortedKeys(m) {
		if m[topic] == nil {
			continue
		}
		dst = appendComma(dst, n)
		n++
		dst = fastjson.AppendString(dst, topic, FastjsonDefault)
		dst = append(dst, ':')
		dst = appendMappingInfo(dst, m[topic], FastjsonDefault)
	}
	return dst
}

// appendTopicConfig appends a TopicConfig bean; nil attributes are written
// as {} (Java's default) and an empty filter type as null.
func appendTopicConfig(dst []byte, tc *TopicConfig) []byte {
	const f = FastjsonDefault
	dst = append(dst, `{"attributes":`...)
	dst = appendSortedStringMap(dst, tc.Attributes)
	dst = append(dst, `,"order":`...)
	dst = appendBool(dst, tc.Order)
	dst = append(dst, `,"perm":`...)
	dst = strconv.AppendInt(dst, int64(tc.Perm), 10)
	dst = append(dst, `,"readQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(tc.ReadQueueNums), 10)
	dst = append(dst, `,"topicFilterType":`...)
	if tc.TopicFilterType != "" {
		dst = fastjson.AppendString(dst, tc.TopicFilterType, f)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"topicName":`...)
	dst = fastjson.AppendString(dst, tc.TopicName, f)
	dst = append(dst, `,"topicSysFlag":`...)
	dst = strconv.AppendInt(dst, int64(tc.TopicSysFlag), 10)
	dst = append(dst, `,"writeQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(tc.WriteQueueNums), 10)
	return append(dst, '}')
}

// appendSortedStringMap appends a string map with sorted keys.
func appendSortedStringMap(dst []byte, m map[string]string) []byte {
	dst = append(dst, '{')
	for i, k := range sortedKeys(m) {
		dst = appendComma(dst, i)
		dst = fastjson.AppendString(dst, k, FastjsonDefault)
		dst = append(dst, ':')
		dst = fastjson.AppendString(dst, m[k], FastjsonDefault)
	}
	return append(dst, '}')
}

// encodeCompressed builds the zlib form of RegisterBrokerBody.encode(true).
func encodeCompressed(b *RegisterBody, withMapping bool) ([]byte, error) {
	raw := appendChunk(nil, AppendDataVersion(nil, &b.DataVersion))
	raw = binary.BigEndian.AppendUint32(raw, uint32(len(b.TopicConfigs)))
	for _, name := range b.KeyOrder() {
		tc := b.TopicConfigs[name]
		raw = appendChunk(raw, appendTopicConfigLine(nil, &tc))
	}
	filters := []byte("null")
	if b.FilterServerList != nil {
		filters = appendStringList(nil, b.FilterServerList, FastjsonDefault)
	}
	raw = appendChunk(raw, filters)
	if withMapping {
		raw = appendMappingSection(raw, b.MappingInfos)
	}
	return deflate(raw)
}

// appendChunk appends a big-endian length and the bytes.
func appendChunk(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// appendTopicConfigLine appends TopicConfig.encode(): five space-separated
// fields, a space, and the attributes JSON.
func appendTopicConfigLine(dst []byte, tc *TopicConfig) []byte {
	dst = append(dst, tc.TopicName...)
	for _, v := range []int32{tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm} {
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, int64(v), 10)
	}
	filter := tc.TopicFilterType
	if filter == "" {
		filter = FilterSingleTag
	}
	dst = append(dst, ' ')
	dst = append(dst, filter...)
	dst = append(dst, ' ')
	return appendSortedStringMap(dst, tc.Attributes)
}

// appendMappingSection appends the mapping count and one JSON per info.
func appendMappingSection(raw []byte, m map[string]*TopicQueueMappingInfo) []byte {
	keys := sortedKeys(m)
	keys = slices.DeleteFunc(keys, func(k string) bool { return m[k] == nil })
	raw = binary.BigEndian.AppendUint32(raw, uint32(len(keys)))
	for _, k := range keys {
		raw = appendChunk(raw, appendMappingInfo(nil, m[k], FastjsonDefault))
	}
	return raw
}

// deflate compresses raw as a zlib stream at BEST_COMPRESSION.
func deflate(raw []byte) ([]byte, error) {
	var out bytes.Buffer
	zw, err := zlib.NewWriterLevel(&out, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
