// Package proxyproto reads the HAProxy PROXY protocol header (version 1,
// the text line, and version 2, the binary block) that a load balancer in
// front of the remoting port sends before the first byte of its client's
// stream, and reports the client address it reveals.
//
// It owns the header parser (ReadHeader) and the connection hook (Hook)
// that the remoting server runs before its first frame: from a trusted
// source a header is used when present (as Java 5.3's
// NettyRemotingServer.HandshakeHandler detects it) and a connection without
// one is served as it is; from any other source a header closes the
// connection, since it would let a client choose the address it is logged
// and checked under. Java accepts the header from anyone.
//
// ConnHooks builds a listener's hook list from config.ProxyProtocol, for
// the NameServer and the Controller alike; Hook and ReadHeader need
// nothing else of this module.
package proxyproto
