package kv

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

const helperEnv = "KV_TEST_HELPER_DB"

// TestHelperProcess is not a real test: when re-executed with helperEnv set it
// Puts keys forever and prints "ok <i>" after each acknowledged Put.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	s, err := Open(path, nil)
	if err != nil {
		fmt.Println("open error:", err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		if err := s.Put("durable", fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)); err != nil {
			fmt.Println("put error:", err)
			os.Exit(3)
		}
		fmt.Printf("ok %d\n", i)
	}
}

func TestKill9KeepsAcknowledgedPuts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	acked := readAcks(t, cmd, bufio.NewScanner(out), 50)
	t.Logf("helper acknowledged %d puts before and around SIGKILL", len(acked))
	require.GreaterOrEqual(t, len(acked), 50)

	s, err := Open(path, testLogger(t))
	require.NoError(t, err)
	defer s.Close()
	for _, i := range acked {
		v, ok := s.Get("durable", fmt.Sprintf("k%d", i))
		require.True(t, ok, "acknowledged key k%d lost", i)
		require.Equal(t, fmt.Sprintf("v%d", i), v)
	}
}

// readAcks reads "ok <i>" lines, SIGKILLs the helper after n of them, and
// keeps reading what the helper had already written before it died.
func readAcks(t *testing.T, cmd *exec.Cmd, sc *bufio.Scanner, n int) []int {
	t.Helper()
	var acked []int
	killed := false
	for sc.Scan() {
		line := sc.Text()
		var i int
		if _, err := fmt.Sscanf(line, "ok %d", &i); err != nil {
			require.True(t, strings.HasPrefix(line, "ok"), "helper said %q", line)
			continue
		}
		acked = append(acked, i)
		if !killed && len(acked) >= n {
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			killed = true
		}
	}
	_ = cmd.Wait()
	require.True(t, killed, "helper exited before %d acks", n)
	return acked
}
