// Package goldenfile reads the byte-exact exchanges with the Java NameServer
// and Controller kept in ../shared/golden (beside the repository), for the
// tests of every package that replays them. It knows the file format, not
// what the exchanges mean.
package goldenfile

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Names of the golden files.
const (
	Namesrv    = "namesrv-java-5.3.jsonl"
	Controller = "controller-java-5.3.jsonl"
)

// ErrNotFound means no shared/golden folder was found above the working
// directory.
var ErrNotFound = errors.New("goldenfile: shared/golden not found")

// Exchange is one request and the reply Java gave to it.
type Exchange struct {
	Case           string  `json:"case"`
	Connection     string  `json:"connection"`
	RequestHex     string  `json:"request_hex"`
	ResponseHex    string  `json:"response_hex"`
	RequestHeader  string  `json:"request_header"`
	RequestBody    *string `json:"request_body"`
	ResponseHeader string  `json:"response_header"`
	ResponseBody   *string `json:"response_body"`
}

// Request is the exact request frame, length field included.
func (e Exchange) Request() ([]byte, error) { return hex.DecodeString(e.RequestHex) }

// Response is the exact response frame, length field included.
func (e Exchange) Response() ([]byte, error) { return hex.DecodeString(e.ResponseHex) }

// Path finds name in the nearest shared/golden folder above the working
// directory (the repository's sibling shared/ in development and in CI).
func Path(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "shared", "golden", name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNotFound
		}
		dir = parent
	}
}

// Read returns every exchange of the named file.
func Read(name string) ([]Exchange, error) {
	p, err := Path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Exchange
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ex Exchange
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	return out, sc.Err()
}

// Load is Read for tests: it skips the test when the golden files are not
// present and fails it when they cannot be read.
func Load(t testing.TB, name string) []Exchange {
	t.Helper()
	out, err := Read(name)
	if errors.Is(err, ErrNotFound) {
		t.Skipf("golden file %s not present", name)
	}
	if err != nil {
		t.Fatalf("read golden file %s: %v", name, err)
	}
	return out
}
