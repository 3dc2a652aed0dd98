package session

import (
	"fmt"
	"path/filepath"
	"strings"

	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/matcher"
)

// Files that run code or pull in files by themselves (SPEC §4, next to the
// guard): Claude Code's .claude/ folders, .mcp.json, CLAUDE.md files,
// .git/hooks/ and .git/config, shell start-up files, ~/.ssh/authorized_keys
// and the like. A change to one of them runs a command or reads a secret on
// the next message or the next git command, without any tool call the
// engine could check. So a call that would change one asks in every mode,
// bypassPermissions included, unless an allow rule names that file or
// folder explicitly; where asking is impossible it is denied. The step only
// turns an allow into an ask: a deny stays a deny, an ask stays an ask.

// AutorunSummary says what the step does, for explain.
const AutorunSummary = "Changing a file that runs code or pulls in files by itself (.claude/, .mcp.json, CLAUDE.md, " +
	".git/hooks/, .git/config, shell start-up files, ~/.ssh/authorized_keys) asks in every mode, bypassPermissions " +
	"included, unless an allow rule names that file; where no prompt can be shown it is refused."

// autorunHit is one file a call would change that runs code by itself.
type autorunHit struct {
	path  string     // the file, absolute
	what  string     // the family, in words: "git hooks"
	names [][]string // the words an allow rule must hold to name it explicitly
	maybe bool       // named in a script text, or by a relative path after a cd to a folder only known at run time
}

// autorun is the step for allowed calls (see above).
func (e *Engine) autorun(c, bc *command.Call, d Decision) Decision {
	if d.Decision != Allow {
		return d
	}
	for _, v := range []*command.Call{c, bc} {
		if v == nil {
			continue
		}
		for _, h := range e.autorunHits(v) {
			if e.namedByAllow(v, h) {
				continue
			}
			return e.autorunAsk(c, v, h)
		}
	}
	for _, v := range []*command.Call{c, bc} {
		if v == nil || v.Tool != "Bash" {
			continue
		}
		if why := v.Unseen(); len(why) > 0 && !e.allowedByName(d) {
			// what cannot be seen may change vibing's permissions or a file
			// that runs code: the guard's and this step's promise holds
			// only if the person looks
			return e.unseenAsk(c, why[0])
		}
	}
	return d
}

// allowedByName reports whether an allow came from a rule with an argument
// (Bash(python3:*)): the person named the program. A bare Bash rule, a
// mode or a policy does not name it.
func (e *Engine) allowedByName(d Decision) bool {
	if d.Rule == "" || (d.Source != SourceAllowList && d.Source != SourceSession && d.Source != SourcePreset) {
		return false
	}
	r, err := matcher.ParseRule(d.Rule)
	return err == nil && r.HasArg()
}

// unseenAsk is the ask for a command the engine cannot see through, through
// step 8.
func (e *Engine) unseenAsk(c *command.Call, why string) Decision {
	return e.askEveryMode(fmt.Sprintf("%s runs what the engine cannot see (%s), which could change vibing's permissions or a file that runs code", describe(c), why),
		"Allow the program by name, e.g. /allow "+matcher.Suggest(c))
}

// askEveryMode is an ask that holds in every mode, bypassPermissions
// included; where no prompt can be shown (dontAsk, a resumed session) it is
// a deny that says how to allow the call (allowHow, a sentence without its
// full stop).
func (e *Engine) askEveryMode(why, allowHow string) Decision {
	d := Decision{Decision: Ask, Source: SourceAutorun, Reason: why + "; it needs your approval in every mode."}
	switch {
	case e.mode == "dontAsk":
		d.Decision = Deny
		d.Reason = why + "; it needs your approval in every mode, but dontAsk mode never prompts. " + allowHow + "."
	case e.resumed && e.cfg.ResumeAsk != config.ResumeAskPrompt:
		d.Decision = Deny
		d.Reason = why + "; it needs your approval in every mode, but approval prompts are off for resumed sessions. " + allowHow + ", or start a fresh session with /new-session."
	}
	return d
}

// autorunAsk is the ask for hit h, through step 8.
func (e *Engine) autorunAsk(c, v *command.Call, h autorunHit) Decision {
	verb := " changes"
	if h.maybe {
		verb = " may change"
	}
	subject := describe(c) + verb + " " + h.path + ","
	if c.Path != nil && c.Path.Abs == h.path {
		subject = describe(c) + verb
	}
	why := fmt.Sprintf("%s a file that %s", subject, h.what)
	return e.askEveryMode(why, "Allow it by name with /allow "+e.explicitRule(v, h))
}

// explicitRule is the allow rule that names h: an Edit rule on its path
// (relative to the working directory when inside it).
func (e *Engine) explicitRule(v *command.Call, h autorunHit) string {
	if !filepath.IsAbs(h.path) {
		return matcher.Suggest(v)
	}
	return matcher.Suggest(command.Prepare("Edit", map[string]any{"file_path": h.path}, v.Env))
}

// namedByAllow reports whether an allow rule (chat, preset or session) names
// the file of h explicitly and allows this call of it: a rule whose pattern
// holds the file's or folder's own name (Edit(.git/hooks/pre-commit),
// Write(CLAUDE.md), Edit(.claude/commands/**), Bash(git config user.name:*))
// - never a broad Edit, Write or Bash allow, nor Edit(**).
func (e *Engine) namedByAllow(v *command.Call, h autorunHit) bool {
	write := e.prepare("Write", map[string]any{"file_path": h.path}, v.Env)
	for _, list := range [][]*rule{e.allow, e.sessAllow} {
		for _, r := range list {
			if r.err != nil || r.Rule.IsRegex() || !r.Rule.HasArg() || !namesAny(r.Rule.Arg, h.names) {
				continue
			}
			switch r.Rule.Tool {
			case "Edit", "Write", "MultiEdit", "NotebookEdit":
				if r.Rule.Match(write, matcher.AllowList) {
					return true
				}
			case "Bash":
				if v.Tool == "Bash" && r.Rule.Match(v, matcher.AllowList) {
					return true
				}
			}
		}
	}
	return false
}

// namesAny reports whether a rule argument holds one of the word sequences
// in order (split at '/' and spaces, a trailing ":*" dropped, letter case
// aside): Edit(.git/hooks/pre-commit) and Edit(.git/modules/x/hooks/**)
// both name git hooks, Edit(**/hooks/**) does not.
func namesAny(arg string, names [][]string) bool {
	words := strings.FieldsFunc(strings.TrimSuffix(arg, ":*"), func(r rune) bool { return r == '/' || r == ' ' || r == '\t' })
	for _, n := range names {
		j := 0
		for _, w := range words {
			if j < len(n) && strings.EqualFold(w, n[j]) {
				j++
			}
		}
		if len(n) > 0 && j == len(n) {
			return true
		}
	}
	return false
}

// autorunHits lists the files that run code by themselves that v would
// change.
func (e *Engine) autorunHits(v *command.Call) []autorunHit {
	var out []autorunHit
	check := func(p command.Path) {
		for i, s := range []string{p.Abs, p.Real} {
			if i == 1 && s == p.Abs {
				return // (the same path, classified already)
			}
			if h, ok := e.classify(s); ok {
				out = append(out, h)
				return
			}
		}
	}
	if v.Edits && v.Path != nil {
		check(*v.Path)
		return out
	}
	if v.Tool != "Bash" {
		return nil
	}
	if v.Err != nil {
		// the line cannot be read: refuse to guess when it names such a file
		if h, ok := e.mentioned(v.Command); ok {
			out = append(out, h)
		}
		return out
	}
	for _, p := range v.Modifies {
		check(p)
	}
	unknown := v.CdUnknown || v.Env.ShellLost // (as the guard reads the line)
	for _, p := range v.Modifies {
		switch {
		case p.Raw == "" || filepath.IsAbs(p.Raw) || strings.HasPrefix(p.Raw, "~"):
		case unknown && namesAutorun(p.Raw):
			// after a cd to a folder only known at run time, a relative
			// target named like such a file may be one (as the guard does)
			if h, ok := e.classify(filepath.Join("/", p.Raw)); ok {
				h.path, h.maybe = p.Raw+" (in a folder only known at run time)", true
				out = append(out, h)
			} else {
				out = append(out, autorunHit{path: p.Raw + " (in a folder only known at run time)", maybe: true,
					what: "may run code by itself (it is named like one)", names: [][]string{nameWords(p.Raw)}})
			}
		}
		if command.BytesExpansion.In(p.Raw) {
			if h, ok := e.mentioned(p.Raw); ok {
				out = append(out, h)
			}
		}
	}
	out = append(out, e.autorunByCommand(v)...)
	return out
}
