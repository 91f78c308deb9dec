package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// `mqadmin help <cmd>` (and -h) says what the command does, shows an
// example, then the flags; every example names a command of the table.
func TestHelpShowsDescriptionAndExample(t *testing.T) {
	t.Parallel()
	out := requireOK(t, mqadmin(t, "help", "topicRoute"))
	require.True(t, strings.HasPrefix(out, "usage: mqadmin topicRoute [flags]\n\nExamine topic route info.\n\nExample:\n"+
		"  mqadmin topicRoute -n 127.0.0.1:9876 -t TopicTest\n\nFlags:\n"), out)
	require.Contains(t, out, "  -t string")
	r := mqadmin(t, "topicRoute", "-h")
	require.Equal(t, exitOK, r.code)
	require.Equal(t, out, r.errOut)
	for name, ex := range examples {
		_, ok := lookup(name)
		require.True(t, ok, "example of unknown command %s", name)
		require.True(t, strings.HasPrefix(ex, "mqadmin "+name+" "), ex)
	}
	for _, c := range commands {
		require.NotEmpty(t, examples[c.name], "command %s has no example in helptext.go", c.name)
	}
}

// The bash completion, made from the command table, completes command
// names and each command's flags.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	script := filepath.Join(t.TempDir(), "mqadmin.bash")
	require.NoError(t, os.WriteFile(script, []byte(requireOK(t, mqadmin(t, "completion", "bash"))), 0o600))
	complete := func(words ...string) string {
		line := "source " + script + "; COMP_WORDS=(" + strings.Join(words, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(words)-1) + `; _mqadmin; echo "${COMPREPLY[*]}"`
		out, err := exec.Command(bash, "--norc", "-c", line).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
	require.Equal(t, "topicRoute topicList topicClusterList", complete("mqadmin", "topic"))
	require.Equal(t, "-topic", complete("mqadmin", "topicRoute", "-to"))
	require.Equal(t, "-writable", complete("mqadmin", "waitRoute", "-wr"))
	require.Equal(t, "bash", complete("mqadmin", "completion", "b"))
	r := mqadmin(t, "completion", "fish")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.errOut, `completion takes bash or zsh, not "fish"`)
}

// The zsh completion is valid zsh (zsh -n) and lists every command.
func TestCompletionZsh(t *testing.T) {
	t.Parallel()
	out := requireOK(t, mqadmin(t, "completion", "zsh"))
	for _, c := range commands {
		require.Contains(t, out, "    ("+c.name+") compadd -- ")
	}
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh not installed")
	}
	script := filepath.Join(t.TempDir(), "_mqadmin")
	require.NoError(t, os.WriteFile(script, []byte(out), 0o600))
	b, err := exec.Command(zsh, "-n", script).CombinedOutput()
	require.NoError(t, err, "%s", b)
}
