// Package process holds what the namesrv and controller commands do as
// Unix processes: the logger their environment asks for (level and
// format), the signals that stop them gracefully (SIGTERM, SIGINT, SIGHUP)
// and the goroutine dump on SIGQUIT, which keeps the process serving.
package process
