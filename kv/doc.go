// Package kv owns the NameServer's KV config: a namespace → key → value table
// (GET_KV_CONFIG, PUT_KV_CONFIG, DELETE_KV_CONFIG, GET_KVLIST_BY_NAMESPACE).
//
// # Storage
//
// The table lives in a bbolt file, one bucket per namespace. Every Put, Delete
// and EnsureNamespace returns only after its bbolt transaction has committed
// (bbolt fsyncs the file on commit), so an acknowledged write survives a
// kill -9 or a power cut. Reads (Get, List) are served from an in-memory copy
// and never touch the disk.
//
// Layout inside the bbolt file:
//
//	bucket "ns:<namespace>"  key "k<key>" → value   (the prefixes allow an empty
//	                                                namespace or key, as Java does)
//	bucket "meta"            key "imported" → JSON record of the Java import
//
// An emptied namespace keeps its bucket: Java never drops a namespace once
// created (GET_KVLIST then answers {"table":{}}).
//
// # Path convention and migration from Java
//
// Java keeps the table as JSON at kvConfigPath (default
// ${user.home}/namesrv/kvConfig.json), shaped {"configTable":{"<ns>":{"<k>":"<v>"}}}.
// We keep the kvConfigPath key: the bbolt file is kvConfigPath with a trailing
// ".json" replaced by ".db" (else kvConfigPath + ".db"), see DBPath. When the
// Java JSON exists at kvConfigPath and the bbolt file carries no "imported"
// marker, OpenWithImport copies the JSON in one transaction together with the
// marker, so the import happens exactly once; later edits of the JSON are
// ignored. A corrupt JSON file fails the open with an error naming the file
// (ErrImport) rather than silently starting with an empty table.
//
// The package knows nothing of the remoting protocol, request codes or the
// NameServer config; callers map its errors to response codes.
package kv
