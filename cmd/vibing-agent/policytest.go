package main

import (
	"context"
	"flag"
	"fmt"

	"vibing/internal/policy"
)

func init() {
	register(subcommand{name: "test", summary: "run a policy test table against the effective policy", run: runPolicyTest})
}

const policyTestUsage = `Usage: vibing-agent test [--dir DIR] [--chat FILE] CASES.yaml

Decides every case of a checked-in table against the effective policy (every
layer: managed, user, project, and the chat when the table or --chat names
one) and fails on any difference, so a team's CI can prove that a policy edit
opened no hole. A case:

  cases:
    - name: no force push
      tool: Bash
      input: {command: "git push --force origin main"}
      cwd: .            # relative to the project root (optional)
      expect: deny      # allow | ask | deny
      source: project:  # optional: the decision's source starts with it

Exit 0 when every case passes, 1 when one differs, 2 for a bad table.

Flags:
`

const policyTestExamples = `
Examples:
  vibing-agent test .vibing/policy-test.yaml
  vibing-agent test --chat .vibing/chat/team.md policy-test.yaml
`

func runPolicyTest(_ context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprint(io.err, policyTestUsage)
		fs.PrintDefaults()
		fmt.Fprint(io.err, policyTestExamples)
	}
	configPath := registerConfigFlag(fs)
	dir := fs.String("dir", "", "the project `DIR` (default: the current folder)")
	chat := fs.String("chat", "", "decide as in this chat `FILE` (default: the table's chat:, else no chat)")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(io.err, "vibing-agent test: give exactly one table of cases")
		fs.Usage()
		return exitUsage
	}
	cs, err := policy.ReadCases(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent test: %v\n", err)
		return exitUsage
	}
	cfg, err := loadConfig(*configPath)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent test: %v\n", err)
		return exitFail
	}
	chatFile := *chat
	if chatFile == "" {
		chatFile = cs.Chat
	}
	ch, err := policy.Open(policy.Request{Config: cfg, ConfigFile: *configPath, Dir: *dir, ChatFile: chatFile, NoChat: chatFile == ""})
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent test: %v\n", err)
		return exitFail
	}
	if ch.LoadErr != nil {
		fmt.Fprintf(io.err, "vibing-agent test: the policy does not load cleanly: %v\n", ch.LoadErr)
	}
	failed := 0
	for i, r := range cs.Run(ch) {
		name := r.Case.Name
		if name == "" {
			name = fmt.Sprintf("case %d (line %d)", i+1, r.Case.Line)
		}
		if r.Pass {
			fmt.Fprintf(io.out, "ok    %s: %s\n", name, r.Got)
			continue
		}
		failed++
		want := r.Case.Expect.String()
		if r.Case.Source != "" {
			want += " from " + r.Case.Source + "…"
		}
		fmt.Fprintf(io.out, "FAIL  %s: got %s from %s, want %s\n      %s\n", name, r.Got, r.Source, want, r.Reason)
	}
	fmt.Fprintf(io.out, "%d of %d cases pass\n", len(cs.Cases)-failed, len(cs.Cases))
	if failed > 0 || ch.LoadErr != nil {
		return exitFail
	}
	return exitOK
}
