package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"vibing/internal/preview"
	"vibing/internal/session"
)

func init() {
	register(subcommand{name: "check", summary: "decide one tool call for a chat; prints one JSON decision", run: runCheck})
}

const checkUsage = `Usage: vibing-agent check --chat FILE --tool NAME --input JSON [flags]

Runs the chat's permission pipeline for one tool call and prints exactly one
JSON object: {"decision","reason","rule","source","level","action"}.
The exit code is 0 whatever the decision; 2 for a usage error; 1 when the
chat cannot be read.

Flags:
`

const checkExamples = `
Examples:
  vibing-agent check --chat .vibing/chat/chat-20261122-100000.md --tool Bash --input '{"command":"npm test"}'
  vibing-agent check --chat chat.md --tool Read --input '{"file_path":".env"}' --cwd ~/src/app
  vibing-agent check --chat chat.md --tool WebFetch --input '{"url":"https://github.com"}' --resumed
  vibing-agent check --chat chat.md --tool Bash --input '{"command":"git push"}' --session-allow 'Bash(git push:*)'
  vibing-agent check --chat chat.md --tool Edit --input '{"file_path":"a.go","old_string":"x","new_string":"y"}' --preview
`

func runCheck(_ context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprint(io.err, checkUsage)
		fs.PrintDefaults()
		fmt.Fprint(io.err, checkExamples)
	}
	configPath := registerConfigFlag(fs)
	chat := fs.String("chat", "", "the chat `FILE` whose frontmatter holds the rules; required")
	tool := fs.String("tool", "", "the tool `NAME` (Bash, Read, WebFetch, mcp__server__tool, ...); required")
	input := fs.String("input", "", "the tool input as a JSON object; required")
	cwd := fs.String("cwd", "", "working `DIR` (default: the chat's working_dir, else the current directory)")
	withPreview := fs.Bool("preview", false, "add the approval preview (diff, new file, command effects, …) as \"preview\"")
	resumed := fs.Bool("resumed", false, "decide as in a resumed session (default: when the chat has a session_id)")
	var allow, deny multiFlag
	fs.Var(&allow, "session-allow", "a `RULE` granted for this session (repeatable)")
	fs.Var(&deny, "session-deny", "a `RULE` refused for this session (repeatable)")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	var missing []string
	for name, v := range map[string]string{"--chat": *chat, "--tool": *tool, "--input": *input} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 || fs.NArg() > 0 {
		if fs.NArg() > 0 {
			fmt.Fprintf(io.err, "vibing-agent check: unexpected argument %q\n", fs.Arg(0))
		} else {
			fmt.Fprintf(io.err, "vibing-agent check: missing %s\n", strings.Join(sortStrings(missing), ", "))
		}
		fs.Usage()
		return exitUsage
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(*input), &in); err != nil || in == nil {
		fmt.Fprintf(io.err, "vibing-agent check: --input must be a JSON object, e.g. '{\"command\":\"npm test\"}'\n")
		return exitUsage
	}
	ce, err := openChat(*chat, *cwd, *configPath, session.Options{Resumed: *resumed, SessionAllow: allow, SessionDeny: deny})
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent check: %v\n", err)
		return exitFail
	}
	if ce.loadErr != nil {
		fmt.Fprintf(io.err, "vibing-agent check: warning: %v\n", ce.loadErr)
	}
	d := ce.engine.Decide(*tool, in)
	var out []byte
	if *withPreview {
		pv := preview.Build(*tool, in, ce.engine.Env())
		if pv.Kind == preview.KindCommand {
			for _, part := range ce.engine.DecideParts(*tool, in, "") {
				pv.Commands = append(pv.Commands, preview.CommandVerdict{Command: part.Command, Decision: part.Decision.Decision.String(),
					Rule: part.Rule, Source: part.Source, Reason: part.Reason})
			}
		}
		out, _ = json.Marshal(struct {
			session.Decision
			Preview preview.Preview `json:"preview"`
		}{d, pv})
	} else {
		out, _ = json.Marshal(d)
	}
	fmt.Fprintln(io.out, string(out))
	return exitOK
}
