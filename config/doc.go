// Package config owns the NameServer's configuration: the typed NamesrvConfig
// struct (Java's NamesrvConfig and NettyServerConfig keys with Java's
// defaults, our extras, and the embedded controller's ControllerConfig),
// loading of Java .properties files, validation, the GET_NAMESRV_CONFIG /
// GET_CONTROLLER_CONFIG bodies, remote updates (UPDATE_NAMESRV_CONFIG /
// UPDATE_CONTROLLER_CONFIG) and their persistence.
//
// # Keys
//
// Every field carries its Java property key in a `prop` struct tag. Keys are
// matched exactly, as Java's MixAll.properties2Object matches setter names
// (setter name without "set", first letter lowercased; so the controller's
// isProcessReadEvent is set by "processReadEvent" and shown as
// "isProcessReadEvent"). Values are trimmed; ints are 32-bit, longs 64-bit.
// A key known to several config objects (scanNotActiveBrokerInterval,
// configStorePath, configBlackList, rocketmqHome, listenPort, ...) sets every
// one of them, as Java does when NamesrvConfig and ControllerConfig are both
// filled from one -c file. Unknown keys are kept verbatim and shown by
// Render, like Java's Configuration.
//
// Differences from Java, on purpose: a value that does not parse
// (listenPort=abc, a boolean other than true/false) is reported by Validate
// instead of being silently ignored; every numeric key has a lower and an
// upper bound (numericBounds); rocketmqHome is optional; a built-in list of
// identity, listener, address, size, memory-limit and path keys
// (fixedBlackList,
// and keys ending in Path, Dir, Home, Port, Addr, Address, Host, Peers or
// SelfId) can never be updated remotely; an update with a value that does
// not parse, or that would make the config invalid, is refused; Persist
// escapes values so they read back unchanged and keeps <file>.bak; the
// embedded controller persists its updates to its own file next to the -c
// file and named after it (EmbeddedControllerFileSuffix), read back over the
// -c file at Load. The ACL keys (aclEnable, aclConfigPath, aclAnonymousRead;
// config/acl.go) are ours, shared by the NameServer and both controllers,
// and never updatable remotely; nor is the controllers' controllerAccessKey
// (config/controller_access.go), the account they sign their requests to
// each other with.
//
// # TLS
//
// TLS (Java's TlsSystemConfig keys, tls.*) is loaded apart from the server
// configs by LoadTLS: from the -c file, the file named by tls.config.file
// and Java-style -Dkey=value arguments and $JAVA_OPT words (JavaProps), in
// that order of precedence, with its own Validate. No tls.* key can be
// updated remotely, and Render masks every *Password value. Package tlsconf
// turns a TLS into listeners and clients.
//
// # Build tag
//
// The embedded controller exists only in binaries built with
// -tags embedded_controller (ControllerCompiledIn). Without it,
// enableControllerInNamesrv=true is a Validate error naming the tag; with it,
// Validate also checks the controller's peers, Raft peers, addresses and
// store path. The package never imports hashicorp/raft under any tag: it
// knows addresses and ids, not the consensus machinery, and nothing of the
// KV store. It reaches the remoting package only through acl, whose
// accounts file Validate reads to check controllerAccessKey
// (config/controller_access.go).
package config
