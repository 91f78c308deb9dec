// Package fastjson owns the JSON flavour that Alibaba fastjson 1.2.x
// writes and reads, as RocketMQ's Java brokers, clients and Controller
// speak it: string escaping in the two serializer dialects (default
// features and BrowserCompatible), unquoted numeric map keys, and the
// layout of JSON.toJSONString(obj, true). It mirrors fastjson's
// SerializeWriter.writeStringWithDoubleQuote, IOUtils' escape tables and
// JSONSerializer's PrettyFormat; it has no dependency on the rest of the
// module.
package fastjson
