//go:build unix

package config

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestValidateRefusesFIFOConfigFiles: aclConfigPath or nsAddrFile naming a named
// pipe made Validate's open block until a writer came: the server never
// started and never said why. Validate refuses it at once, naming the key.
func TestValidateRefusesFIFOConfigFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for key, text := range map[string]string{
		"aclConfigPath": "aclEnable=true\naclConfigPath=" + fifo + "\n",
		"nsAddrFile":    "metricsExporterType=PROM\nnsAddrFile=" + fifo + "\n",
	} {
		c, err := Load(writeFile(t, "n.properties", text))
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- c.Validate() }()
		select {
		case err := <-done:
			requireKeysNamed(t, err, key, "not a regular file")
		case <-time.After(5 * time.Second):
			t.Fatalf("Validate hangs on %s naming a pipe", key)
		}
	}
}
