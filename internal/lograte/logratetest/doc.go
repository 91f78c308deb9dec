// Package logratetest is test support for the log-flood attack tests: it
// plays a stranger who opens connections and sends garbage many times
// over, and counts the log lines that caused, per path and per message,
// against lograte's bound.
package logratetest
