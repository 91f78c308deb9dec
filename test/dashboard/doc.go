// Package dashboard checks the Grafana dashboard's expressions against a
// real Prometheus (Debian's prometheus binary, skipped without it)
// scraping a NameServer started in the test.
package dashboard
