//go:build embedded_controller

package controller

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// EncodeEntry encodes the events of one request as one log entry:
//   - no events: the single byte EventNoop (a barrier entry);
//   - one event: its type byte followed by its JSON;
//   - several: EventBatch, then per event its type byte, the uvarint length
//     of its JSON and the JSON.
func EncodeEntry(events ...Event) ([]byte, error) {
	switch len(events) {
	case 0:
		return []byte{byte(EventNoop)}, nil
	case 1:
		payload, err := json.Marshal(events[0])
		if err != nil {
			return nil, fmt.Errorf("encode event type %d: %w", events[0].Type(), err)
		}
		return append([]byte{byte(events[0].Type())}, payload...), nil
	}
	out := []byte{byte(EventBatch)}
	for _, ev := range events {
		payload, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("encode event type %d: %w", ev.Type(), err)
		}
		out = append(out, byte(ev.Type()))
		out = binary.AppendUvarint(out, uint64(len(payload)))
		out = append(out, payload...)
	}
	return out, nil
}

// DecodeEntry decodes a log entry into its events (in order). Unknown types
// flagged with IgnoreUnknownFlag are skipped; anything else that cannot be
// decoded is an error.
func DecodeEntry(data []byte) ([]Event, error) {
	if len(data) == 0 {
		return nil, errors.New("empty log entry")
	}
	t := EventType(data[0])
	if t != EventBatch {
		ev, ok, err := decodeOne(t, data[1:])
		if err != nil || !ok {
			return nil, err
		}
		return []Event{ev}, nil
	}
	return decodeBatch(data[1:])
}

func decodeBatch(rest []byte) ([]Event, error) {
	var events []Event
	for len(rest) > 0 {
		t := EventType(rest[0])
		if t == EventBatch {
			return nil, errors.New("nested batch entry")
		}
		n, size := binary.Uvarint(rest[1:])
		if size <= 0 || uint64(len(rest)-1-size) < n {
			return nil, errors.New("truncated batch entry")
		}
		start := 1 + size
		ev, ok, err := decodeOne(t, rest[start:start+int(n)])
		if err != nil {
			return nil, err
		}
		if ok {
			events = append(events, ev)
		}
		rest = rest[start+int(n):]
	}
	return events, nil
}
