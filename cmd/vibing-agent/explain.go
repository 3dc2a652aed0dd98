package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"vibing/internal/policy"
	"vibing/internal/sandbox"
	"vibing/internal/session"
)

func init() {
	register(subcommand{name: "explain", summary: "the chat's effective permissions in plain words", run: runExplain})
}

const explainUsage = `Usage: vibing-agent explain --chat FILE [--json] [flags]

Prints what the chat's settings mean: for every tool, what runs without asking,
what asks, what is refused and why; the default deny rules; the files no tool
may change; every rule by policy layer (managed, user, project, chat,
session) with warnings for rules that never count; the policy files found
and which of their allow rules wait for 'vibing-agent trust'; the sandbox the
claude CLI runs in (what is writable, read-only and hidden, what could not
be covered). Exit 1 when the chat cannot be read or its settings are invalid
(the explanation is still printed and says what is wrong).

Flags:
`

const explainExamples = `
Examples:
  vibing-agent explain --chat .vibing/chat/chat-20261122-100000.md
  vibing-agent explain --chat chat.md --json | jq '.tools[] | select(.tool=="Bash")'
`

func runExplain(_ context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprint(io.err, explainUsage)
		fs.PrintDefaults()
		fmt.Fprint(io.err, explainExamples)
	}
	configPath := registerConfigFlag(fs)
	chat := fs.String("chat", "", "the chat `FILE`; required")
	cwd := fs.String("cwd", "", "working `DIR` (default: the chat's working_dir, else the current directory)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if *chat == "" || fs.NArg() > 0 {
		fmt.Fprintln(io.err, "vibing-agent explain: --chat FILE is required and takes no other arguments")
		fs.Usage()
		return exitUsage
	}
	ce, err := openChat(*chat, *cwd, *configPath, session.Options{})
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent explain: %v\n", err)
		return exitFail
	}
	x := ce.engine.Explain()
	sb := sandboxReport(ce.engine, ce.root, *configPath, ce.cfg)
	if *asJSON {
		b, _ := json.MarshalIndent(struct {
			session.Explanation
			Files   []policy.File  `json:"files"`
			Sandbox sandbox.Report `json:"sandbox"`
		}{x, ce.files, sb}, "", "  ")
		fmt.Fprintln(io.out, string(b))
	} else {
		fmt.Fprint(io.out, x.Text())
		fmt.Fprint(io.out, policy.FilesText(ce.files))
		fmt.Fprint(io.out, sb.Text())
	}
	if ce.loadErr != nil {
		return exitFail
	}
	return exitOK
}
