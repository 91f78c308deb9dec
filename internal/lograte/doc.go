// Package lograte bounds log lines that a stranger can cause at will (one
// per connection refused before its first request): at most one line per
// interval, the next line counting the ones left out.
package lograte
