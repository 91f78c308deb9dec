package wire

// decodeTop runs member on each member of the top-level object of body and
// checks that nothing but whitespace follows it.
func decodeTop(body []byte, member func(s *scanner, key []byte) error) error {
	null, err := decodeTopOrNull(body, member)
	if null {
		return ErrNullBody
	}
	return err
}

// decodeTopOrNull is decodeTop that reports no bytes at all or the JSON
// literal null as null (then err is about what follows the literal), as
// fastjson's parseObject returns null for them. Whitespace alone is still
// ErrNullBody.
func decodeTopOrNull(body []byte, member func(s *scanner, key []byte) error) (null bool, err error) {
	if len(body) == 0 {
		return true, nil
	}
	s := newScanner(body)
	if s.peek() == 0 {
		return false, ErrNullBody
	}
	ok, err := s.object(func(key []byte) error { return member(s, key) })
	if err != nil {
		return false, err
	}
	return !ok, s.end()
}

// DecodeTopicRouteData parses a TopicRouteData body in either flavour
// (bare or quoted broker ids). Unknown keys are ignored; absent lists and
// maps stay nil.
func DecodeTopicRouteData(body []byte) (*TopicRouteData, error) {
	r := &TopicRouteData{}
	err := decodeTop(body, func(s *scanner, key []byte) error {
		return decodeRouteMember(s, key, r)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// decodeRouteMember decodes one TopicRouteData property.
func decodeRouteMember(s *scanner, key []byte, r *TopicRouteData) (err error) {
	switch string(key) {
	case "orderTopicConf":
		r.OrderTopicConf, err = s.str()
	case "queueDatas":
		r.QueueDatas, err = decodeQueueDatas(s)
	case "brokerDatas":
		r.BrokerDatas, err = decodeBrokerDatas(s)
	case "filterServerTable":
		r.FilterServerTable, err = decodeFilterServerTable(s)
	case "topicQueueMappingByBroker":
		r.TopicQueueMappingByBroker, err = decodeMappingTable(s)
	default:
		if name := routeBean.match(key); name != nil {
			return decodeRouteMember(s, name, r)
		}
		err = s.skip()
	}
	return err
}

// decodeQueueDatas reads an array of QueueData; null elements are dropped.
func decodeQueueDatas(s *scanner) ([]QueueData, error) {
	list := []QueueData{}
	ok, err := s.array(func() error {
		var q QueueData
		present, err := s.object(func(key []byte) error { return decodeQueueMember(s, key, &q) })
		if present {
			list = append(list, q)
		}
		return err
	})
	if !ok {
		return nil, err
	}
	return list, err
}

// decodeQueueMember decodes one QueueData property (also the 4.x spelling
// topicSynFlag).
func decodeQueueMember(s *scanner, key []byte, q *QueueData) (err error) {
	switch string(key) {
	case "brokerName":
		q.BrokerName, err = s.str()
	case "perm":
		q.Perm, err = s.int32v()
	case "readQueueNums":
		q.ReadQueueNums, err = s.int32v()
	case "writeQueueNums":
		q.WriteQueueNums, err = s.int32v()
	case "topicSysFlag", "topicSynFlag":
		q.TopicSysFlag, err = s.int32v()
	default:
		if name := queueDataBean.match(key); name != nil {
			return decodeQueueMember(s, name, q)
		}
		err = s.skip()
	}
	return err
}

// decodeBrokerDatas reads an array of BrokerData; null elements are dropped.
func decodeBrokerDatas(s *scanner) ([]BrokerData, error) {
	list := []BrokerData{}
	ok, err := s.array(func() error {
		b, present, err := decodeBrokerData(s)
		if present {
			list = append(list, b)
		}
		return err
	})
	if !ok {
		return nil, err
	}
	return list, err
}

// decodeBrokerData reads one BrokerData object; present is false for null.
func decodeBrokerData(s *scanner) (b BrokerData, present bool, err error) {
	present, err = s.object(func(key []byte) error { return decodeBrokerMember(s, key, &b) })
	return b, present, err
}

// decodeBrokerMember decodes one BrokerData property.
func decodeBrokerMember(s *scanner, key []byte, b *BrokerData) (err error) {
	switch string(key) {
	case "brokerAddrs":
		b.BrokerAddrs, err = s.longKeyMap()
	case "brokerName":
		b.BrokerName, err = s.str()
	case "cluster":
		b.Cluster, err = s.str()
	case "enableActingMaster":
		b.EnableActingMaster, err = s.boolv()
	case "zoneName":
		b.ZoneName, err = s.str()
	default:
		if name := brokerDataBean.match(key); name != nil {
			return decodeBrokerMember(s, name, b)
		}
		err = s.skip()
	}
	return err
}

// decodeFilterServerTable reads brokerAddr -> [filter server]; a null list
// is kept as a nil value.
func decodeFilterServerTable(s *scanner) (map[string][]string, error) {
	m := map[string][]string{}
	ok, err := s.object(func(key []byte) error {
		k := string(key)
		list, err := s.stringList()
		m[k] = list
		return err
	})
	if !ok {
		return nil, err
	}
	return m, err
}

// decodeMappingTable reads name -> TopicQueueMappingInfo; null values are
// dropped.
func decodeMappingTable(s *scanner) (map[string]*TopicQueueMappingInfo, error) {
	m := map[string]*TopicQueueMappingInfo{}
	ok, err := s.object(func(key []byte) error {
		k := string(key)
		info, err := decodeMappingInfo(s)
		if info != nil {
			m[k] = info
		}
		return err
	})
	if !ok {
		return nil, err
	}
	return m, err
}

// decodeMappingInfo reads a TopicQueueMappingInfo with Java's defaults,
// scope "__global__" and an empty currIdMap (each null when the body says
// null); nil for null.
func decodeMappingInfo(s *scanner) (*TopicQueueMappingInfo, error) {
	m := &TopicQueueMappingInfo{Scope: "__global__", CurrIDMap: map[int32]int32{}}
	ok, err := s.object(func(key []byte) error { return decodeMappingMember(s, key, m) })
	if !ok {
		return nil, err
	}
	return m, err
}

// decodeMappingMember decodes one TopicQueueMappingInfo property.
func decodeMappingMember(s *scanner, key []byte, m *TopicQueueMappingInfo) (err error) {
	switch string(key) {
	case "topic":
		m.Topic, err = s.str()
	case "scope":
		m.Scope, m.ScopeNull, err = s.strOrNull()
	case "totalQueues":
		m.TotalQueues, err = s.int32v()
	case "bname":
		m.Bname, err = s.str()
	case "epoch":
		m.Epoch, err = s.int64v()
	case "dirty":
		m.Dirty, err = s.boolv()
	case "currIdMap":
		m.CurrIDMap, err = s.intKeyMap()
	default:
		if name := mappingInfoBean.match(key); name != nil {
			return decodeMappingMember(s, name, m)
		}
		err = s.skip()
	}
	return err
}
