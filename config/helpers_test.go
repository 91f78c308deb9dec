package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeFile writes content to a new file in a temp dir and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func mustParse(t *testing.T, text []byte) map[string]string {
	t.Helper()
	m, err := parseProperties(text)
	require.NoError(t, err)
	return m
}

// requireKeysNamed asserts err mentions every key.
func requireKeysNamed(t *testing.T, err error, keys ...string) {
	t.Helper()
	require.Error(t, err)
	for _, k := range keys {
		require.Contains(t, err.Error(), k)
	}
}

// countLines counts the joined errors.
func countLines(err error) int {
	return len(strings.Split(strings.TrimSpace(err.Error()), "\n"))
}
