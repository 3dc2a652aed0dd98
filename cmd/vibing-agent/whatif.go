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
	"vibing/internal/frontmatter"
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
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(errw, "vibing-agent audit: %v\n", err)
		return exitFail
	}
	engines := map[replayKey]*enginePair{}
	var missing []string
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tTOOL\tACTION\tRECORDED\tNOW\tWITH THE RULE\tCHAT")
	changed, replayed, guessed := 0, 0, 0
	for _, e := range entries {
		k := keyOf(e)
		p, seen := engines[k]
		if !seen {
			var why string
			p, why = openPair(cfg, cfgPath, k, wd, l, rule)
			engines[k] = p
			if p == nil {
				missing = append(missing, why)
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
		if e.Resumed == nil || e.Cwd == "" {
			guessed++
		}
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
	if guessed > 0 {
		fmt.Fprintf(w, "%d of them were recorded by an older vibing-agent, which did not note whether the session was resumed or its working directory:"+
			" they were replayed as their chat is now (resumed when it has a session_id) from its project folder (a chat outside a project's .vibing/: the current folder).\n", guessed)
	}
	seenWhy := map[string]bool{}
	for _, why := range missing {
		if !seenWhy[why] {
			seenWhy[why] = true
			fmt.Fprintln(w, why)
		}
	}
	return exitOK
}

// replayKey names the engine a row is replayed on: its chat, decided in a
// resumed session or not (nil: the row does not say), from its working
// directory ("": the row does not say).
type replayKey struct {
	chat    string
	resumed int // 0: unsaid, 1: fresh, 2: resumed
	cwd     string
}

func keyOf(e audit.Entry) replayKey {
	k := replayKey{chat: e.Chat, cwd: e.Cwd}
	if e.Resumed != nil {
		k.resumed = 1
		if *e.Resumed {
			k.resumed = 2
		}
	}
	return k
}

// openPair loads the effective policy of the chat of k as the rows of k
// were decided, twice, the second time with the rule added to list: in a
// resumed session or not, from the row's working directory. A row that
// does not say is replayed as its chat is now, from the chat's project
// folder (wd for a chat outside a project's .vibing/). why says what was
// not replayed when the pair is nil.
func openPair(cfg *config.Config, cfgPath string, k replayKey, wd string, l matcher.List, rule string) (p *enginePair, why string) {
	gone := fmt.Sprintf("Not replayed: the calls of %s (the chat cannot be loaded any more).", cell(k.chat))
	if k.chat == "" {
		return nil, gone
	}
	if _, err := os.Stat(k.chat); err != nil {
		return nil, gone
	}
	doc, err := frontmatter.ReadFile(k.chat)
	if err != nil {
		return nil, gone
	}
	req := policy.Request{Config: cfg, ConfigFile: cfgPath, ChatFile: k.chat, Dir: policy.ProjectRoot(k.chat, wd)}
	if k.cwd != "" {
		if fi, err := os.Stat(k.cwd); err != nil || !fi.IsDir() {
			return nil, fmt.Sprintf("Not replayed: the calls of %s made in %s (that folder is gone).", cell(k.chat), cell(k.cwd))
		}
		req.Dir, req.Cwd = k.cwd, k.cwd
	}
	req.Options.Resumed = k.resumed == 2
	open := func() *session.Engine {
		s, err := doc.Settings() // settings of its own for each engine
		if err != nil {
			return nil
		}
		if k.resumed == 1 { // a fresh session, whatever the chat holds now
			s.SessionID, s.ForkOf = "", ""
		}
		r := req
		r.Settings = &s
		ch, err := policy.Open(r)
		if err != nil {
			return nil
		}
		return ch.Engine
	}
	before, after := open(), open()
	if before == nil || after == nil || after.AddRule(l, rule) != nil {
		return nil, gone
	}
	return &enginePair{before, after}, ""
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
