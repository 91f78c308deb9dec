//go:build !embedded_controller

package integration

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBinaryRejectsControllerWithoutTag: enableControllerInNamesrv=true in
// a binary built without -tags embedded_controller exits non-zero and says
// which tag is missing.
func TestBinaryRejectsControllerWithoutTag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "namesrv.properties")
	writeProps(t, path, map[string]string{
		"bindAddress":               "127.0.0.1",
		"listenPort":                strconv.Itoa(freePort(t)),
		"kvConfigPath":              filepath.Join(dir, "kvConfig.json"),
		"enableControllerInNamesrv": "true",
	})
	code, stdout, stderr := runBinary(t, "-c", path)
	require.NotEqual(t, 0, code)
	require.Contains(t, stdout+stderr, "embedded_controller")
}
