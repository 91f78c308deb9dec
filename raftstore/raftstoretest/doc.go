// Package raftstoretest is the test tooling of package raftstore: an
// in-memory Raft cluster started from a test (NewInmemCluster) and a
// logger that writes to t.Log. It is imported by tests only, so that no
// binary links package testing; it is compiled only with the build tag
// `embedded_controller` (this file is the only one without the tag).
package raftstoretest
