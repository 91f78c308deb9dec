package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/version"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // an error, or a negative answer (differs, not sendable, timed out)
	exitUsage = 2 // bad command line (and routeDiff's fetch errors)
)

// runFunc runs a parsed command.
type runFunc func(e *env) error

// command is one subcommand: setup declares its flags on fs and returns
// the function that runs it once they are parsed.
type command struct {
	name  string
	desc  string
	setup func(fs *flag.FlagSet) runFunc
}

// commands is the dispatch table, in help order.
var commands = []command{
	{"clusterList", "List cluster infos.", setupClusterList},
	{"topicRoute", "Examine topic route info.", setupTopicRoute},
	{"topicList", "Fetch all topic list from name server.", setupTopicList},
	{"topicClusterList", "Get cluster info for topic.", setupTopicClusterList},
	{"deleteTopic", "Delete topic from broker and NameServer.", setupDeleteTopic},
	{"updateOrderConf", "Create or update or delete order conf.", setupUpdateOrderConf},
	{"updateKvConfig", "Create or update KV config.", setupUpdateKvConfig},
	{"deleteKvConfig", "Delete KV config.", setupDeleteKvConfig},
	{"getNamesrvConfig", "Get configs of name server.", setupGetNamesrvConfig},
	{"updateNamesrvConfig", "Update configs of name server.", setupUpdateNamesrvConfig},
	{"wipeWritePerm", "Wipe write perm of broker in all name server you defined in the -n param.", setupWipeWritePerm},
	{"addWritePerm", "Add write perm of broker in all name server you defined in the -n param.", setupAddWritePerm},
	{"getControllerMetaData", "Get controller cluster's metadata.", setupGetControllerMetaData},
	{"getControllerConfig", "Get controller config.", setupGetControllerConfig},
	{"updateControllerConfig", "Update controller config.", setupUpdateControllerConfig},
	{"getSyncStateSet", "Fetch syncStateSet for target brokers.", setupGetSyncStateSet},
	{"electMaster", "Re-elect the specified broker as master.", setupElectMaster},
	{"cleanBrokerMetadata", "Clean metadata of broker on controller.", setupCleanBrokerMetadata},
	{"getControllerVersions", "Show each controller's binary version, format and the cluster version.", setupGetControllerVersions},
	{"listControllerMembers", "List the controller group's Raft members (voters, non-voters, how far behind).", setupListControllerMembers},
	{"addControllerMember", "Add a controller as a non-voter; promoted to voter once caught up.", setupAddControllerMember},
	{"removeControllerMember", "Remove a controller from the group (refused without a live majority).", setupRemoveControllerMember},
	{"moveControllerMember", "Record a stopped controller's new Raft address (moved with its data).", setupMoveControllerMember},
	{"backupController", "Save a consistent backup of the controller group's state, taken by the leader.", setupBackupController},
	{"routeDiff", "Compare cluster info, topic lists and routes across NameServers.", setupRouteDiff},
	{"diagnose", "Explain why a topic is not sendable.", setupDiagnose},
	{"waitRoute", "Wait until every NameServer returns the topic's route.", setupWaitRoute},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one mqadmin invocation and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		return help(args, stdout, stderr)
	}
	if args[0] == "-version" || args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, version.String("mqadmin"))
		return exitOK
	}
	if args[0] == "completion" {
		return runCompletion(args[1:], stdout, stderr)
	}
	cmd, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "mqadmin: unknown command %q\n", args[0])
		printCommands(stderr)
		return exitUsage
	}
	return cmd.exec(ctx, args[1:], stdout, stderr)
}

// exec parses the command's flags and runs it.
func (c command) exec(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	args, javaProps, err := config.JavaProps(args, os.Getenv(config.JavaOptEnv))
	if err != nil {
		fmt.Fprintf(stderr, "mqadmin %s: %v\n", c.name, err)
		return exitUsage
	}
	fs := flag.NewFlagSet("mqadmin "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	e := &env{ctx: ctx, out: stdout, errOut: stderr, name: c.name}
	e.declareCommon(fs)
	runCmd := c.setup(fs)
	fs.Usage = c.usageFunc(fs, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return e.usageFailure(fs, usageErrorf("unexpected argument %q", fs.Arg(0)))
	}
	sign, err := e.signer()
	if err != nil {
		return e.finish(fs, err)
	}
	tlsCfg, err := e.clientTLS(javaProps)
	if err != nil {
		fmt.Fprintf(stderr, "mqadmin %s: %v\n", c.name, err)
		return exitFail
	}
	e.client = admin.New(admin.Options{Sign: sign, TLS: tlsCfg})
	defer e.client.Close()
	return e.finish(fs, runCmd(e))
}

// finish turns a command's error into a message and an exit status.
func (e *env) finish(fs *flag.FlagSet, err error) int {
	var ue *usageError
	var st *statusError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return e.usageFailure(fs, ue)
	case errors.As(err, &st):
		if st.err != nil {
			fmt.Fprintf(e.errOut, "mqadmin %s: %v\n", e.name, st.err)
		}
		return st.code
	}
	fmt.Fprintf(e.errOut, "mqadmin %s: %v\n", e.name, err)
	return exitFail
}

func (e *env) usageFailure(fs *flag.FlagSet, ue *usageError) int {
	fmt.Fprintf(e.errOut, "mqadmin %s: %s\n", e.name, ue.msg)
	fs.Usage()
	return exitUsage
}

func lookup(name string) (command, bool) {
	i := slices.IndexFunc(commands, func(c command) bool { return strings.EqualFold(c.name, name) })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

// help prints the command list, or one command's flags for "help <cmd>".
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "help" {
		if cmd, ok := lookup(args[1]); ok {
			return cmd.exec(context.Background(), []string{"-h"}, stdout, stdout)
		}
		fmt.Fprintf(stderr, "mqadmin: unknown command %q\n", args[1])
		return exitUsage
	}
	fmt.Fprintln(stdout, "usage: mqadmin <command> [-n \"host:port;host:port\"] [options] [--json]")
	printCommands(stdout)
	if len(args) == 0 {
		return exitUsage
	}
	return exitOK
}

func printCommands(w io.Writer) {
	fmt.Fprintln(w, "The most commonly used mqadmin commands are:")
	for _, c := range commands {
		fmt.Fprintf(w, "   %-25s %s\n", c.name, c.desc)
	}
	fmt.Fprintln(w, "See 'mqadmin help <command>' for more information on a specific command.")
	fmt.Fprintln(w, "Shell completion: source <(mqadmin completion bash), or mqadmin completion zsh.")
}
