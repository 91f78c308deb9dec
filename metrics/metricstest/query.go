package metricstest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"
)

// Find returns the samples called name whose labels include every
// name/value pair of labelPairs.
func (fs Families) Find(name string, labelPairs ...string) []Sample {
	var out []Sample
	for _, f := range fs {
		for _, s := range f.Samples {
			if s.Name == name && matches(s.Labels, labelPairs) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Sum adds the values of Find(name, labelPairs...).
func (fs Families) Sum(name string, labelPairs ...string) float64 {
	var sum float64
	for _, s := range fs.Find(name, labelPairs...) {
		sum += s.Value
	}
	return sum
}

// Has reports whether any sample matches.
func (fs Families) Has(name string, labelPairs ...string) bool {
	return len(fs.Find(name, labelPairs...)) > 0
}

func matches(labels map[string]string, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v, ok := labels[pairs[i]]; !ok || v != pairs[i+1] {
			return false
		}
	}
	return true
}

// Get fetches url and returns its status and body.
func Get(t testing.TB, url string) (int, string) {
	t.Helper()
	status, _, body := fetch(t, url)
	return status, body
}

func fetch(t testing.TB, url string) (status int, contentType, body string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// Scrape fetches http://addr/metrics, checks the status and that the
// content type is the text format, and parses the body.
func Scrape(t testing.TB, addr string) Families {
	t.Helper()
	status, ctype, body := fetch(t, "http://"+addr+"/metrics")
	return parseResponse(t, status, ctype, body)
}

// ScrapeHandler is Scrape of a /metrics handler, without a listener; it
// also returns the body.
func ScrapeHandler(t testing.TB, h http.Handler) (Families, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	return parseResponse(t, rec.Code, rec.Header().Get("Content-Type"), body), body
}

func parseResponse(t testing.TB, status int, ctype, body string) Families {
	t.Helper()
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, expfmt.TypeTextPlain, expfmt.Format(ctype).FormatType(), ctype)
	require.True(t, strings.HasPrefix(ctype, string(expfmt.FmtText)), ctype)
	fs, err := Parse([]byte(body))
	require.NoError(t, err, body)
	return fs
}

// WaitStatus polls url until it answers want, failing the test if it does
// not within the given time; it returns the last body.
func WaitStatus(t testing.TB, url string, want int, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		status, body := Get(t, url)
		if status == want {
			return body
		}
		if time.Now().After(deadline) {
			require.Failf(t, "unexpected status", "%s: want %d, last answer %d %q", url, want, status, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
