//go:build !lean

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"vibing/internal/audit"
	"vibing/internal/config"
	"vibing/internal/matcher"
	"vibing/internal/policy"
	"vibing/internal/session"
	"vibing/internal/tools"
)

// whatIf replays audit entries against each chat's effective policy, with
// and without one more rule, and prints the calls whose outcome the rule
// would change. It returns the exit code.
func whatIf(w io.Writer, errw io.Writer, cfg *config.Config, cfgPath, rule, list string, entries []audit.Entry) int {
	l, ok := map[string]matcher.List{"allow": matcher.AllowList, "ask": matcher.AskList, "deny": matcher.DenyList}[list]
	if !ok {
		fmt.Fprintf(errw, "vibing-agent audit: --as must be allow, ask or deny, got %q\n", list)
		return exitUsage
	}
	if _, err := matcher.ParseRule(rule); err != nil {
		fmt.Fprintf(errw, "vibing-agent audit: --what-if: %v\n", err)
		return exitUsage
	}
	engines := map[string]*enginePair{}
	var missing []string
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tTOOL\tACTION\tRECORDED\tNOW\tWITH THE RULE\tCHAT")
	changed, replayed := 0, 0
	for _, e := range entries {
		p, seen := engines[e.Chat]
		if !seen {
			p = openPair(cfg, cfgPath, e.Chat, l, rule)
			engines[e.Chat] = p
			if p == nil {
				missing = append(missing, e.Chat)
			}
		}
		if p == nil {
			continue
		}
		input, ok := inputOf(e.Tool, e.Action)
		if !ok {
			continue
		}
		replayed++
		before, after := p.before.Decide(e.Tool, input), p.after.Decide(e.Tool, input)
		if before.Decision == after.Decision {
			continue
		}
		changed++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format("2006-01-02 15:04:05"), cell(e.Tool),
			cell(e.Action, 60), e.Decision, before.Decision, after.Decision, cell(e.Chat))
	}
	if changed > 0 {
		tw.Flush()
	}
	fmt.Fprintf(w, "%s as %s would change %d of %d replayed calls.\n", rule, list, changed, replayed)
	for _, c := range missing {
		fmt.Fprintf(w, "Not replayed: the calls of %s (the chat cannot be loaded any more).\n", cell(c))
	}
	return exitOK
}

// openPair loads a chat's effective policy twice, the second time with the
// rule added to list.
func openPair(cfg *config.Config, cfgPath, chat string, l matcher.List, rule string) *enginePair {
	if chat == "" {
		return nil
	}
	if _, err := os.Stat(chat); err != nil {
		return nil
	}
	open := func() *session.Engine {
		ch, err := policy.Open(policy.Request{Config: cfg, ConfigFile: cfgPath, ChatFile: chat})
		if err != nil {
			return nil
		}
		return ch.Engine
	}
	before, after := open(), open()
	if before == nil || after == nil || after.AddRule(l, rule) != nil {
		return nil
	}
	return &enginePair{before, after}
}

type enginePair struct{ before, after *session.Engine }

// inputOf rebuilds a tool input from an audit row's action string
// "tool:<Tool>:<detail>".
func inputOf(tool, action string) (map[string]any, bool) {
	detail, ok := strings.CutPrefix(action, "tool:"+tool+":")
	if !ok {
		return nil, false
	}
	var m map[string]any
	if strings.HasPrefix(detail, "{") && json.Unmarshal([]byte(detail), &m) == nil {
		return m, true
	}
	info, known := tools.Lookup(tool)
	switch {
	case known && info.Arg == tools.ArgCommand, info.Command != "":
		return map[string]any{"command": detail}, true
	case known && info.PathKey != "" && info.Arg == tools.ArgPath:
		return map[string]any{info.PathKey: detail}, true
	case known && info.Arg == tools.ArgDomain:
		return map[string]any{"url": detail}, true
	case known && info.Arg == tools.ArgPattern:
		return map[string]any{"pattern": detail}, true
	}
	return nil, false
}
