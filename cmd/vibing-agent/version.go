package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"

	"vibing/internal/version"
)

func init() {
	register(subcommand{name: "version", summary: "print the version", run: runVersion})
}

func runVersion(_ context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "Usage: vibing-agent version\n\nPrints the version of vibing-agent (the Neovim plugin checks it matches).")
	}
	registerConfigFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	v := version.Version
	if bi, ok := debug.ReadBuildInfo(); ok && bi.GoVersion != "" {
		fmt.Fprintf(io.out, "vibing-agent %s (%s)\n", v, bi.GoVersion)
		return exitOK
	}
	fmt.Fprintf(io.out, "vibing-agent %s\n", v)
	return exitOK
}
