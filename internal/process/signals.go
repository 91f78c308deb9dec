package process

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// StopSignals are the signals that stop a server gracefully. SIGHUP is
// among them: a closed terminal or a supervisor's hang-up ends in the
// graceful stop, never in Go's default immediate exit.
var StopSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}

// NotifyStop returns a channel receiving StopSignals. Call it before the
// servers start, so that a signal arriving while they start still ends in
// the graceful stop; signal.Stop it when done. A SIGHUP the process was
// started ignoring (nohup) stays ignored: Notify would otherwise undo it
// and the closed terminal would stop the server.
func NotifyStop() chan os.Signal {
	ch := make(chan os.Signal, 1)
	for _, sig := range StopSignals {
		if sig == syscall.SIGHUP && signal.Ignored(sig) {
			continue
		}
		signal.Notify(ch, sig)
	}
	return ch
}

// maxDumpBytes bounds one goroutine dump.
const maxDumpBytes = 64 << 20

// DumpOnQuit logs the stack of every goroutine each time the process gets
// SIGQUIT (kill -3), as a JVM prints a thread dump, and keeps it running
// (Go's default is to dump and exit 2). The returned func stops it and
// waits for a dump under way.
func DumpOnQuit(logger hclog.Logger) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGQUIT)
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-ch:
				logDump(logger)
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done); <-exited }
}

func logDump(logger hclog.Logger) {
	stack := AllStacks()
	logger.Info("goroutine dump (SIGQUIT), still serving", "goroutines", runtime.NumGoroutine(),
		"bytes", len(stack), "stacks", hclog.CapturedStacktrace(stack))
}

// AllStacks returns the stacks of every goroutine, up to maxDumpBytes.
func AllStacks() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= maxDumpBytes {
			return string(buf[:n])
		}
		buf = make([]byte, min(2*len(buf), maxDumpBytes))
	}
}
