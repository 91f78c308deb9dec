package wire

// fastjson's smart match: a property whose name is no field's exact name
// is matched to the field whose name equals it once both are lower-cased
// and stripped of '_' and '-' (JavaBeanDeserializer.smartMatch,
// TypeUtils.fnv1a_64_extract); failing that, a name starting "is" is
// matched the same way without the prefix, to a boolean field only. It
// applies to bean properties, never to map keys. The decoders switch on
// the exact names first and ask a bean's fields only for a name they do
// not know, so a body of exact names pays nothing for it.
type beanFields struct {
	byName map[string]string // normalized name -> field name
	bools  map[string]bool   // boolean fields
}

// newBean describes a bean by its field names, the boolean ones marked
// by a leading '?'.
func newBean(fields ...string) *beanFields {
	b := &beanFields{byName: map[string]string{}, bools: map[string]bool{}}
	for _, f := range fields {
		if f[0] == '?' {
			f = f[1:]
			b.bools[f] = true
		}
		b.byName[string(normalizeName(nil, []byte(f)))] = f
	}
	return b
}

// match returns the field key names by smart match, or nil; nil too for
// a field's exact name (its decoder already declined it).
func (b *beanFields) match(key []byte) []byte {
	var buf [64]byte
	f, ok := b.byName[string(normalizeName(buf[:0], key))]
	if !ok && len(key) > 2 && key[0] == 'i' && key[1] == 's' {
		f, ok = b.byName[string(normalizeName(buf[:0], key[2:]))]
		ok = ok && b.bools[f]
	}
	if !ok || f == string(key) {
		return nil
	}
	return []byte(f)
}

// normalizeName appends key lower-cased (ASCII) without '_' and '-'.
func normalizeName(dst, key []byte) []byte {
	for _, c := range key {
		switch {
		case c == '_' || c == '-':
		case 'A' <= c && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// The beans of the register, route and data-version bodies.
var (
	registerBodyBean = newBean("filterServerList", "topicConfigSerializeWrapper")
	wrapperBean      = newBean("dataVersion", "topicConfigTable", "topicQueueMappingInfoMap")
	dataVersionBean  = newBean("counter", "stateVersion", "timestamp")
	topicConfigBean  = newBean("topicName", "readQueueNums", "writeQueueNums", "perm", "topicFilterType",
		"topicSysFlag", "?order", "attributes")
	mappingInfoBean = newBean("topic", "scope", "totalQueues", "bname", "epoch", "?dirty", "currIdMap")
	routeBean       = newBean("orderTopicConf", "queueDatas", "brokerDatas", "filterServerTable",
		"topicQueueMappingByBroker")
	queueDataBean  = newBean("brokerName", "perm", "readQueueNums", "writeQueueNums", "topicSysFlag")
	brokerDataBean = newBean("brokerAddrs", "brokerName", "cluster", "?enableActingMaster", "zoneName")
)
