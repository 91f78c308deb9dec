package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// examples is one invocation per command, shown by `mqadmin help <cmd>`
// (and on -h) under its description.
var examples = map[string]string{
	"clusterList":            `mqadmin clusterList -n 127.0.0.1:9876`,
	"topicRoute":             `mqadmin topicRoute -n 127.0.0.1:9876 -t TopicTest`,
	"topicList":              `mqadmin topicList -n 127.0.0.1:9876 -c`,
	"topicClusterList":       `mqadmin topicClusterList -n 127.0.0.1:9876 -t TopicTest`,
	"deleteTopic":            `mqadmin deleteTopic -n 127.0.0.1:9876 -c DefaultCluster -t TopicTest`,
	"updateOrderConf":        `mqadmin updateOrderConf -n 127.0.0.1:9876 -t TopicTest -v "broker-a:4;broker-b:4" -m put`,
	"updateKvConfig":         `mqadmin updateKvConfig -n 127.0.0.1:9876 -s ORDER_TOPIC_CONFIG -k TopicTest -v "broker-a:4"`,
	"deleteKvConfig":         `mqadmin deleteKvConfig -n 127.0.0.1:9876 -s ORDER_TOPIC_CONFIG -k TopicTest`,
	"getNamesrvConfig":       `mqadmin getNamesrvConfig -n "10.0.0.11:9876;10.0.0.12:9876"`,
	"updateNamesrvConfig":    `mqadmin updateNamesrvConfig -n 127.0.0.1:9876 -k scanNotActiveBrokerInterval -v 10000`,
	"wipeWritePerm":          `mqadmin wipeWritePerm -n "10.0.0.11:9876;10.0.0.12:9876" -b broker-a`,
	"addWritePerm":           `mqadmin addWritePerm -n "10.0.0.11:9876;10.0.0.12:9876" -b broker-a`,
	"getControllerMetaData":  `mqadmin getControllerMetaData -a 127.0.0.1:9878`,
	"getControllerConfig":    `mqadmin getControllerConfig -a "10.0.0.11:9878;10.0.0.12:9878;10.0.0.13:9878"`,
	"updateControllerConfig": `mqadmin updateControllerConfig -a 127.0.0.1:9878 -k enableElectUncleanMaster -v false`,
	"getSyncStateSet":        `mqadmin getSyncStateSet -a "10.0.0.11:9878;10.0.0.12:9878;10.0.0.13:9878" -b broker-a`,
	"electMaster":            `mqadmin electMaster -a 127.0.0.1:9878 -c DefaultCluster -bn broker-a -b 2`,
	"cleanBrokerMetadata":    `mqadmin cleanBrokerMetadata -a 127.0.0.1:9878 -c DefaultCluster -bn broker-a -b "3"`,
	"getControllerVersions":  `mqadmin getControllerVersions -a "10.0.0.11:9878;10.0.0.12:9878;10.0.0.13:9878"`,
	"listControllerMembers":  `mqadmin listControllerMembers -a "10.0.0.11:9878;10.0.0.12:9878;10.0.0.13:9878"`,
	"addControllerMember":    `mqadmin addControllerMember -a "10.0.0.11:9878;10.0.0.12:9878" -i n3 -r 10.0.0.14:9880`,
	"removeControllerMember": `mqadmin removeControllerMember -a "10.0.0.11:9878;10.0.0.12:9878" -i n2`,
	"moveControllerMember":   `mqadmin moveControllerMember -a "10.0.0.11:9878;10.0.0.12:9878" -i n2 -r 10.0.0.23:9880`,
	"backupController":       `mqadmin backupController -a "10.0.0.11:9878;10.0.0.12:9878;10.0.0.13:9878" -f controller-backup.bin`,
	"routeDiff":              `mqadmin routeDiff -n "10.0.0.11:9876;10.0.0.12:9876;10.0.0.13:9876" -t TopicTest`,
	"diagnose":               `mqadmin diagnose -n 127.0.0.1:9876 -a 127.0.0.1:9878 -t TopicTest`,
	"waitRoute":              `mqadmin waitRoute -n "10.0.0.11:9876;10.0.0.12:9876" -t TopicTest -writable -timeout 2m`,
}

// usageFunc prints a command's usage: a usage line, what it does, an
// example, then its flags.
func (c command) usageFunc(fs *flag.FlagSet, w io.Writer) func() {
	return func() {
		fmt.Fprintf(w, "usage: mqadmin %s [flags]\n\n%s\n", c.name, c.desc)
		if ex := examples[c.name]; ex != "" {
			fmt.Fprintf(w, "\nExample:\n  %s\n", ex)
		}
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// flagNames lists a command's flags (its own and the common ones), as
// declared by its setup, sorted.
func (c command) flagNames() []string {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	(&env{}).declareCommon(fs)
	c.setup(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
	sort.Strings(names)
	return names
}

// builtins are the words mqadmin takes besides the command table.
var builtins = []string{"help", "version", "completion"}

// completion prints a completion script for shell (bash or zsh), made
// from the command table and each command's flags.
func completion(shell string, w io.Writer) error {
	switch shell {
	case "bash":
		writeBashCompletion(w)
	case "zsh":
		writeZshCompletion(w)
	default:
		return usageErrorf("completion takes bash or zsh, not %q", shell)
	}
	return nil
}

func commandNames() []string {
	names := append([]string(nil), builtins...)
	for _, c := range commands {
		names = append(names, c.name)
	}
	return names
}

func writeBashCompletion(w io.Writer) {
	fmt.Fprintf(w, `# bash completion for mqadmin: source <(mqadmin completion bash)
_mqadmin() {
  local cur=${COMP_WORDS[COMP_CWORD]} words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "%s" -- "$cur"))
    return
  fi
  case "${COMP_WORDS[1]}" in
`, strings.Join(commandNames(), " "))
	for _, c := range commands {
		fmt.Fprintf(w, "    %s) words=\"%s\" ;;\n", c.name, strings.Join(c.flagNames(), " "))
	}
	fmt.Fprintf(w, `    help) words="%s" ;;
    completion) words="bash zsh" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _mqadmin mqadmin
`, strings.Join(commandNames()[len(builtins):], " "))
}

func writeZshCompletion(w io.Writer) {
	fmt.Fprintln(w, "#compdef mqadmin\n# zsh completion for mqadmin: mqadmin completion zsh > \"${fpath[1]}/_mqadmin\"\n_mqadmin() {\n  local -a cmds\n  cmds=(")
	for _, b := range builtins {
		fmt.Fprintf(w, "    %s\n", zshQuote(b+":"+b))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "    %s\n", zshQuote(c.name+":"+c.desc))
	}
	fmt.Fprintln(w, "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' cmds\n    return\n  fi\n  case $words[2] in")
	for _, c := range commands {
		fmt.Fprintf(w, "    (%s) compadd -- %s ;;\n", c.name, strings.Join(c.flagNames(), " "))
	}
	fmt.Fprintf(w, "    (help) compadd -- %s ;;\n    (completion) compadd -- bash zsh ;;\n  esac\n}\n_mqadmin \"$@\"\n",
		strings.Join(commandNames()[len(builtins):], " "))
}

// zshQuote single-quotes s for zsh.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// runCompletion serves `mqadmin completion bash|zsh`.
func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: mqadmin completion bash|zsh")
		return exitUsage
	}
	if err := completion(args[0], stdout); err != nil {
		fmt.Fprintf(stderr, "mqadmin: %v\n", err)
		return exitUsage
	}
	return exitOK
}
