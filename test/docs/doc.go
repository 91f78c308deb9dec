// Package docs keeps the repository's documentation true to the code by
// reading both: every relative link and anchor of README.md and docs/*.md
// resolves; the import graph written in docs/architecture.md is the one the
// source declares, and its package table names every package; every
// `func Fuzz` of the repository is run by `make fuzz`; docs/testing.md
// shows `make test-long` as the Makefile runs it; every test, benchmark,
// fuzz target and rocketmq_* metric the docs name exists.
//
// The import graph is generated: after moving packages, run
// `go test ./test/docs -run TestImportGraph -update` and commit the
// rewritten block of docs/architecture.md.
package docs
