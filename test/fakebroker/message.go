package fakebroker

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/remoting"
)

// Request codes a producer sends to a broker (RequestCode.java).
const (
	SendMessage      int32 = 10
	HeartBeat        int32 = 34
	UnregisterClient int32 = 35
	SendMessageV2    int32 = 310
	SendBatchMessage int32 = 320
)

// Message property keys (MessageConst.java).
const (
	PropertyTags      = "TAGS"
	PropertyKeys      = "KEYS"
	PropertyUniqueKey = "UNIQ_KEY"
)

// compressedFlag is MessageSysFlag.COMPRESSED_FLAG.
const compressedFlag = 1

// Message is one message a producer sent, as the broker stored it.
type Message struct {
	Code          int32 // SendMessage, SendMessageV2 or SendBatchMessage
	ProducerGroup string
	Topic         string
	QueueID       int32
	QueueOffset   int64
	MsgID         string // the offset message id answered as ext msgId
	SysFlag       int32
	Flag          int32
	Body          []byte // decompressed when SysFlag says compressed
	Properties    map[string]string
}

// Tags returns the TAGS property.
func (m Message) Tags() string { return m.Properties[PropertyTags] }

// Keys returns the KEYS property.
func (m Message) Keys() string { return m.Properties[PropertyKeys] }

// Messages returns every message received so far, in arrival order.
func (b *Broker) Messages() []Message { return b.messages.snapshot() }

// WaitMessage returns the first received message matching pred (any
// message if pred is nil), waiting until ctx ends.
func (b *Broker) WaitMessage(ctx context.Context, pred func(Message) bool) (Message, error) {
	if pred == nil {
		pred = func(Message) bool { return true }
	}
	return b.messages.wait(ctx, pred)
}

// sendHeader is the part of SendMessageRequestHeader the broker uses.
type sendHeader struct {
	group, topic, props string
	queueID             int32
	sysFlag, flag       int32
}

// longKeys and shortKeys name the header fields of SEND_MESSAGE and of
// SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE (SendMessageRequestHeaderV2: a..n).
var (
	longKeys  = [...]string{"producerGroup", "topic", "properties", "queueId", "sysFlag", "flag"}
	shortKeys = [...]string{"a", "b", "i", "e", "f", "h"}
)

// parseSendHeader reads the header of a send request.
func parseSendHeader(req *remoting.Command) (sendHeader, error) {
	keys := longKeys
	if req.Code != SendMessage {
		keys = shortKeys
	}
	h := sendHeader{group: req.ExtFields[keys[0]], topic: req.ExtFields[keys[1]], props: req.ExtFields[keys[2]]}
	if h.topic == "" {
		return h, errors.New("topic is missing")
	}
	var err1, err2, err3 error
	h.queueID, _, err1 = req.ExtInt32(keys[3])
	h.sysFlag, _, err2 = req.ExtInt32(keys[4])
	h.flag, _, err3 = req.ExtInt32(keys[5])
	return h, errors.Join(err1, err2, err3)
}

// decodeProperties parses MessageDecoder.messageProperties2String output:
// name\x01value\x02 pairs.
func decodeProperties(s string) map[string]string {
	props := map[string]string{}
	for _, item := range strings.Split(s, "\x02") {
		if k, v, ok := strings.Cut(item, "\x01"); ok && k != "" {
			props[k] = v
		}
	}
	return props
}

// decodeBatch splits a SEND_BATCH_MESSAGE body into messages
// (MessageDecoder.encodeMessages: totalSize, magic, bodyCRC, flag,
// bodyLen, body, short propertiesLen, properties).
func decodeBatch(data []byte) ([]Message, error) {
	var out []Message
	for len(data) > 0 {
		if len(data) < 22 {
			return nil, fmt.Errorf("batch: %d trailing bytes", len(data))
		}
		total := int(binary.BigEndian.Uint32(data))
		if total < 22 || total > len(data) {
			return nil, fmt.Errorf("batch: bad message size %d", total)
		}
		m, err := decodeBatchEntry(data[:total])
		if err != nil {
			return nil, err
		}
		out = append(out, m)
		data = data[total:]
	}
	return out, nil
}

func decodeBatchEntry(rec []byte) (Message, error) {
	m := Message{Flag: int32(binary.BigEndian.Uint32(rec[12:]))}
	n := int(binary.BigEndian.Uint32(rec[16:]))
	if n < 0 || 20+n+2 > len(rec) {
		return m, fmt.Errorf("batch: bad body size %d", n)
	}
	m.Body = bytes.Clone(rec[20 : 20+n])
	p := int(binary.BigEndian.Uint16(rec[20+n:]))
	if 22+n+p > len(rec) {
		return m, fmt.Errorf("batch: bad properties size %d", p)
	}
	m.Properties = decodeProperties(string(rec[22+n : 22+n+p]))
	return m, nil
}

// inflate undoes the producer's zlib compression of a message body.
func inflate(data []byte) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
}

// offsetMsgID is MessageDecoder.createMessageId: store host IPv4, port and
// commit log offset as 32 upper-case hex digits.
func offsetMsgID(port int, commitOffset int64) string {
	var b [16]byte
	copy(b[:4], []byte{127, 0, 0, 1})
	binary.BigEndian.PutUint32(b[4:], uint32(port))
	binary.BigEndian.PutUint64(b[8:], uint64(commitOffset))
	return strings.ToUpper(fmt.Sprintf("%x", b[:]))
}

// store assigns queue offsets and message ids to msgs, records them and
// returns the first offset and the ids.
func (b *Broker) store(msgs []Message) (first int64, ids []string) {
	b.mu.Lock()
	for i := range msgs {
		key := msgs[i].Topic + "/" + strconv.Itoa(int(msgs[i].QueueID))
		msgs[i].QueueOffset = b.offsets[key]
		b.offsets[key]++
		msgs[i].MsgID = offsetMsgID(b.port, b.commit)
		b.commit += int64(100 + len(msgs[i].Body))
		ids = append(ids, msgs[i].MsgID)
	}
	b.mu.Unlock()
	b.messages.add(msgs...)
	return msgs[0].QueueOffset, ids
}
