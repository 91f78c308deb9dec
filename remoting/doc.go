// Package remoting implements the Apache RocketMQ remoting protocol as spoken
// by the Java NameServer, Controller, brokers and rocketmq-client-go v2.
//
// It owns:
//   - frames: the 4-byte length, the header word (serialize type and header
//     length) and the body (EncodeFrame, DecodeFrame, ReadFrame);
//   - both header codecs: the JSON header, encoded byte for byte like
//     fastjson 1.2.83 and decoded as leniently as Java does, and the ROCKETMQ
//     binary header;
//   - the Command type and its typed extFields helpers with Java semantics;
//   - request, response and language codes;
//   - the Server (per-connection read loop dispatching by request code, or
//     on bounded goroutines for RegisterAsync codes; requests of
//     RegisterTransient codes recycled for the next frame; responses
//     written by the read loop when nothing is queued, else by a batching
//     writer; bodies over 64 KiB written from their own slices (writev);
//     oneway handling, error replies, idle close, graceful shutdown (with
//     Java's GO_AWAY phase when GoAwayPeriod is set), connection hooks,
//     server-to-peer requests; memory bounds: queued response bytes per
//     connection with back-pressure, a server-wide budget for partly read
//     large frames; an optional Authorize hook run before every handler)
//     and the Client (pipelined requests matched by opaque, server-pushed
//     requests, an optional Sign hook applied to every request sent).
//
// It must not know NameServer or Controller semantics: handlers are plain
// functions registered by code, and bodies are opaque bytes. Of this module
// it imports only the leaf packages internal/fastjson (the header's JSON
// flavour), internal/lograte (its logger) and internal/monotime (idle and
// deadline decisions).
package remoting
