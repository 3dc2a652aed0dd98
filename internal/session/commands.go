package session

import (
	"errors"
	"fmt"
	"strings"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// commandView returns the Bash view of a call of a tool other than Bash that
// runs a shell command (the CLI's Monitor; an MCP or unknown tool whose input
// has a "command"): the same command prepared as a Bash call, so that the
// guard, the deny and ask rules for Bash, the default deny rules and the
// files-that-run-code step see it. nil for every other call.
//
// An allow for such a call comes from a rule that names the tool itself
// (Monitor, mcp__server__tool, a prefix) or from Bash allow rules that cover
// the command, as they would cover it in Bash; a bare "ask: Bash" yields to
// either, like to any narrower allow.
func (e *Engine) commandView(c *command.Call) *command.Call {
	if !c.RunsCommand {
		return nil // (Bash itself, and a tool that runs no command)
	}
	cmd := c.RunCommand
	if strings.EqualFold(c.Tool, "PowerShell") || strings.EqualFold(c.Tool, "pwsh") {
		cmd = posixSpelling(cmd)
	}
	return e.prepare("Bash", map[string]any{"command": cmd}, c.Env)
}

// psCmdlets are PowerShell's commands and aliases that do what a program a
// Bash rule names does: Claude Code's PowerShell tool meets the deny and ask
// rules (and the default deny rules) written for Bash under those names.
var psCmdlets = map[string]string{
	"remove-item": "rm", "ri": "rm", "del": "rm", "erase": "rm", "rd": "rm", "rmdir": "rm",
	"get-content": "cat", "gc": "cat", "type": "cat", "cat": "cat",
	"set-content": "tee", "sc": "tee", "add-content": "tee -a", "ac": "tee -a", "out-file": "tee",
	"copy-item": "cp", "copy": "cp", "cpi": "cp", "move-item": "mv", "move": "mv", "mi": "mv",
	"rename-item": "mv", "ren": "mv", "rni": "mv", "new-item": "touch", "ni": "touch",
	"invoke-webrequest": "curl", "iwr": "curl", "invoke-restmethod": "curl", "irm": "curl",
	"invoke-expression": "eval", "iex": "eval", "set-location": "cd", "sl": "cd", "chdir": "cd",
	"get-childitem": "ls", "gci": "ls", "dir": "ls", "select-string": "grep", "sls": "grep",
}

// psParams are PowerShell parameters with the option the Bash program takes.
var psParams = map[string]string{"-recurse": "-r", "-force": "-f", "-path": "", "-literalpath": "", "-destination": ""}

// posixSpelling rewrites a PowerShell command line's commands and the
// parameters above into the programs and options a Bash rule names; the
// rest of the line is left as it is.
func posixSpelling(line string) string {
	var b strings.Builder
	atCmd := true
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && !strings.ContainsRune(" \t;|&(){}\n", rune(line[j])) {
			j++
		}
		if j == i {
			c := line[i]
			b.WriteByte(c)
			if strings.ContainsRune(";|&({\n", rune(c)) {
				atCmd = true
			}
			i++
			continue
		}
		word := line[i:j]
		lw := strings.ToLower(word)
		switch {
		case atCmd:
			if u, ok := psCmdlets[lw]; ok {
				word = u
			}
			atCmd = false
		default:
			if u, ok := psParams[lw]; ok {
				word = u
			}
			// a Windows path: .\.env is ./.env
			word = strings.ReplaceAll(word, `\`, "/")
		}
		b.WriteString(word)
		i = j
	}
	return b.String()
}

// commandText is the command a call runs, for describing it.
func commandText(c *command.Call) string {
	if c.Tool == "Bash" {
		return c.Command
	}
	return c.RunCommand
}

// searchNote explains a Read rule that fires on a Grep because of what lies
// below its folder rather than the folder itself (h: how the rule matched).
func searchNote(h *matcher.Hit) string {
	if h.Below == "" {
		return ""
	}
	return fmt.Sprintf(", which names files below %s that the search would read; give a narrower path or a glob that leaves them out", h.Below)
}

// Suggest returns the narrowest useful rule for an "always" or "for session"
// answer to a call that asks: for an ask about a file that runs code by
// itself, the Edit rule that names it; for a tool that runs a command, the
// Bash rule for that command; else matcher.Suggest's.
func (e *Engine) Suggest(tool string, input map[string]any) string {
	c := e.Prepare(tool, input)
	bc := e.commandView(c)
	if d := e.DecideCall(c); d.Source == SourceAutorun {
		for _, v := range []*command.Call{c, bc} {
			if v == nil {
				continue
			}
			if hits := e.autorunHits(v); len(hits) > 0 {
				return e.explicitRule(v, hits[0])
			}
		}
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if bc != nil && bc.Err == nil {
		return e.suggest(bc)
	}
	return e.suggest(c)
}

// coversWithReads is matcher.CoversWithReads with this engine's repository
// check, under its lock.
func (e *Engine) coversWithReads(rules []*matcher.Rule, v *command.Call) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	_, ok := matcher.CoversWithReads(rules, v, e.repoReadable(v))
	return ok
}

// RulesCover checks a rule set typed for an "always" or "for session"
// answer (one line, as Suggest writes it and /allow reads it) against the
// call it answers: every rule must be valid, and together they must cover
// the call — for the allow list, allow it as the allow list would (each
// simple command of a Bash line, each file it writes); for the deny list,
// fire on it. The error says in one sentence what is wrong.
func (e *Engine) RulesCover(tool string, input map[string]any, list matcher.List, text string) error {
	texts := matcher.SplitRules(text)
	if len(texts) == 0 {
		return errors.New("no rule was given")
	}
	rules := make([]*matcher.Rule, 0, len(texts))
	for _, t := range texts {
		r, err := e.parseRule(t)
		if err != nil {
			return err
		}
		rules = append(rules, r)
	}
	c := e.Prepare(tool, input)
	views := []*command.Call{c}
	if bc := e.commandView(c); bc != nil {
		views = append(views, bc)
	}
	for _, v := range views {
		if list == matcher.AllowList {
			if ok, _ := matcher.Covers(rules, v); ok {
				return nil
			}
			if ok := e.coversWithReads(rules, v); ok && e.readsBeside() {
				return nil // the reads beside them pass as the mode's (allowedWithReads)
			}
			continue
		}
		for _, r := range rules {
			if r.Match(v, list) {
				return nil
			}
		}
	}
	what := "does not allow"
	if list != matcher.AllowList {
		what = "does not match"
	}
	if len(rules) > 1 {
		what = strings.Replace(what, "does", "do", 1)
	}
	hint := ""
	if s := e.Suggest(tool, input); s != "" && s != text && list == matcher.AllowList {
		hint = fmt.Sprintf(" (the rules that do: %s)", s)
	}
	return fmt.Errorf("%s %s %s%s", text, what, describe(c), hint)
}
