package wire

// DecodeDataVersion parses a DataVersion body. Missing fields are 0; no
// bytes or null is ErrNullBody.
func DecodeDataVersion(body []byte) (*DataVersion, error) {
	dv := &DataVersion{}
	var stamped bool
	err := decodeTop(body, func(s *scanner, key []byte) error {
		return decodeDataVersionMember(s, key, dv, &stamped)
	})
	if err != nil {
		return nil, err
	}
	return dv, nil
}

// DecodeDataVersionStamp is DecodeDataVersion that also reports whether the
// body sets the timestamp. Java's DataVersion defaults its timestamp to
// the time it is built, so one decoded from a body without timestamp
// equals no version stored earlier. No bytes or the JSON literal null
// (DataVersion.decode gives null, which equals no stored version either)
// is a zero DataVersion without timestamp, not an error.
func DecodeDataVersionStamp(body []byte) (dv *DataVersion, stamped bool, err error) {
	dv, stamped, _, err = decodeDataVersionOrNull(body)
	return dv, stamped, err
}

// decodeDataVersionOrNull is DecodeDataVersionStamp that also reports the
// null DataVersion of no bytes or the literal null.
func decodeDataVersionOrNull(body []byte) (dv *DataVersion, stamped, null bool, err error) {
	dv = &DataVersion{}
	null, err = decodeTopOrNull(body, func(s *scanner, key []byte) error {
		return decodeDataVersionMember(s, key, dv, &stamped)
	})
	if err != nil {
		return nil, false, false, err
	}
	return dv, stamped, null, nil
}

// decodeDataVersion reads a nested DataVersion object into a new value, as
// fastjson builds a new one for each occurrence; stamped reports whether
// the object sets the timestamp, null whether it is null (which sets
// nothing).
func decodeDataVersion(s *scanner) (dv DataVersion, stamped, null bool, err error) {
	present, err := s.object(func(key []byte) error {
		return decodeDataVersionMember(s, key, &dv, &stamped)
	})
	return dv, stamped, !present && err == nil, err
}

// decodeDataVersionMember decodes one DataVersion property. A timestamp
// that is a null long sets nothing (fastjson skips the primitive setter):
// the one set by an earlier member stays, else Java's default, the time
// of decoding; *stamped reports whether one was set.
func decodeDataVersionMember(s *scanner, key []byte, dv *DataVersion, stamped *bool) (err error) {
	switch string(key) {
	case "counter": // an AtomicLong: null is kept
		dv.Counter, dv.CounterNull, err = s.int64OrNull()
	case "stateVersion":
		dv.StateVersion, err = s.int64v()
	case "timestamp":
		var v int64
		var isNull bool
		if v, isNull, err = s.int64OrNull(); err == nil && !isNull {
			dv.Timestamp, *stamped = v, true
		}
	default:
		if name := dataVersionBean.match(key); name != nil {
			return decodeDataVersionMember(s, name, dv, stamped)
		}
		err = s.skip()
	}
	return err
}

// DecodeClusterInfo parses a GET_BROKER_CLUSTER_INFO body (bare numeric
// broker ids accepted). Null entries are dropped.
func DecodeClusterInfo(body []byte) (*ClusterInfo, error) {
	ci := &ClusterInfo{}
	err := decodeTop(body, func(s *scanner, key []byte) (err error) {
		switch string(key) {
		case "brokerAddrTable":
			ci.BrokerAddrTable, err = decodeBrokerAddrTable(s)
		case "clusterAddrTable":
			ci.ClusterAddrTable, err = decodeClusterAddrTable(s)
		default:
			err = s.skip()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return ci, nil
}

// decodeBrokerAddrTable reads brokerName -> BrokerData.
func decodeBrokerAddrTable(s *scanner) (map[string]BrokerData, error) {
	m := map[string]BrokerData{}
	_, err := s.object(func(key []byte) error {
		k := string(key)
		b, present, err := decodeBrokerData(s)
		if present {
			m[k] = b
		}
		return err
	})
	return m, err
}

// decodeClusterAddrTable reads clusterName -> [brokerName].
func decodeClusterAddrTable(s *scanner) (map[string][]string, error) {
	m := map[string][]string{}
	_, err := s.object(func(key []byte) error {
		k := string(key)
		list, err := s.stringList()
		if list != nil {
			m[k] = list
		}
		return err
	})
	return m, err
}

// DecodeTopicList parses a TopicList body.
func DecodeTopicList(body []byte) (*TopicList, error) {
	tl := &TopicList{}
	err := decodeTop(body, func(s *scanner, key []byte) (err error) {
		switch string(key) {
		case "topicList":
			tl.TopicList, err = s.stringList()
		case "brokerAddr":
			tl.BrokerAddr, err = s.str()
		default:
			err = s.skip()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return tl, nil
}

// DecodeKVTable parses {"table":{...}}; the result is never nil on success.
func DecodeKVTable(body []byte) (map[string]string, error) {
	var table map[string]string
	err := decodeTop(body, func(s *scanner, key []byte) (err error) {
		if string(key) != "table" {
			return s.skip()
		}
		table, err = s.stringMap()
		return err
	})
	if err != nil {
		return nil, err
	}
	if table == nil {
		table = map[string]string{}
	}
	return table, nil
}

// DecodeBrokerMemberGroup parses {"brokerMemberGroup":{...}}; a missing or
// null group is ErrNullBody.
func DecodeBrokerMemberGroup(body []byte) (*BrokerMemberGroup, error) {
	var g *BrokerMemberGroup
	err := decodeTop(body, func(s *scanner, key []byte) error {
		if string(key) != "brokerMemberGroup" {
			return s.skip()
		}
		var err error
		g, err = decodeMemberGroup(s)
		return err
	})
	if err == nil && g == nil {
		err = ErrNullBody
	}
	if err != nil {
		return nil, err
	}
	return g, nil
}

// decodeMemberGroup reads a BrokerMemberGroup object; nil for null.
func decodeMemberGroup(s *scanner) (*BrokerMemberGroup, error) {
	g := &BrokerMemberGroup{}
	ok, err := s.object(func(key []byte) (err error) {
		switch string(key) {
		case "brokerAddrs":
			g.BrokerAddrs, err = s.longKeyMap()
		case "brokerName":
			g.BrokerName, err = s.str()
		case "cluster":
			g.Cluster, err = s.str()
		default:
			err = s.skip()
		}
		return err
	})
	if !ok {
		return nil, err
	}
	return g, err
}
