// Package process holds what the namesrv and controller commands do as
// Unix processes: the logger their environment asks for (level and
// format).
package process
