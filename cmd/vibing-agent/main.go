// Command vibing-agent is vibing's backend: it decides tool calls (check,
// explain, validate), drives the claude CLI for one chat turn (run), serves the
// Neovim plugin over msgpack-RPC (rpc), and reads the audit log (audit).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and failed (bad rule, error event, ...)
	exitUsage = 2 // the command line is wrong
)

// stdio is what a subcommand talks to.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

type subcommand struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, io stdio) int
	// signals: the first SIGINT or SIGTERM cancels the command's context,
	// and it stops cleanly (run ends the turn and the CLI with its tools);
	// a second one closes abortOf(ctx), and a command that can stop at
	// once does (run kills the CLI and its tools without waiting for the
	// turn to end); later ones are ignored. Without it they end the process
	// at once; the short commands (check, hook, ...) have nothing to clean
	// up, and watching for signals costs a start-up thread.
	signals bool
}

var commands = map[string]subcommand{}

// register adds a subcommand; each subcommand's file calls it from init.
func register(c subcommand) { commands[c.name] = c }

func main() {
	os.Exit(Run(context.Background(), os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// Run runs the command line args and returns the exit code.
func Run(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 {
		usage(io.err)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(io.out)
		return exitOK
	case "--version", "-version":
		args[0] = "version"
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(io.err, "vibing-agent: unknown command %q\n\n", args[0])
		usage(io.err)
		return exitUsage
	}
	if c.signals {
		var stop func()
		ctx, stop = watchSignals(ctx)
		defer stop()
	}
	return c.run(ctx, args[1:], io)
}

type abortKey struct{}

// watchSignals returns ctx cancelled by the first SIGINT or SIGTERM, whose
// abortOf is closed by the second. stop stops watching.
func watchSignals(parent context.Context) (ctx context.Context, stop func()) {
	abort := make(chan struct{})
	ctx, cancel := context.WithCancel(context.WithValue(parent, abortKey{}, (<-chan struct{})(abort)))
	sigs := make(chan os.Signal, 2) // two at once are two
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for _, fire := range []func(){cancel, func() { close(abort) }} {
			select {
			case <-sigs:
				fire()
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// abortOf is closed by a second SIGINT or SIGTERM to a command that watches
// signals (nil, which is never closed, for one that does not).
func abortOf(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(abortKey{}).(<-chan struct{})
	return ch
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "vibing-agent — the permission layer and agent backend of vibing")
	fmt.Fprintln(w, "\nUsage:\n  vibing-agent <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nEvery command accepts --config FILE (the options the editor writes from setup())")
	fmt.Fprintln(w, "and --help. Run 'vibing-agent <command> --help' for its flags and examples.")
}
