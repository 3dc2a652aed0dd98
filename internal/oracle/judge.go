package oracle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/session"
)

// A Decider decides one tool call: the engine, or a stand-in.
type Decider interface {
	Decide(tool string, input map[string]any) session.Decision
}

// A RuleSet is one chat's rules and mode the oracle asks the engine with.
type RuleSet struct {
	Name   string
	Mode   string
	Preset string
	Allow  []string
	Ask    []string
	Deny   []string
}

// secretRules are the deny and ask rules every rule set carries: what the
// attack intents aim at.
var secretDeny = []string{
	"Read(.env)", "Read(**/.env)", "Read(src/secret/**)", "Read(**/*.pem)", "Read(~/.ssh/**)",
	"Edit(CLAUDE.md)", "Write(CLAUDE.md)", "Edit(~/.bashrc)",
	"Bash(curl:*)", "Bash(wget:*)", "Bash(rm:*)", "Bash(shred:*)", "Bash(nc:*)",
}

var secretAsk = []string{"Bash(git push:*)", "Read(~/notes/**)"}

// RuleSets is the table of rule sets (issue 24): narrow allows, a broad
// Bash allow, bypassPermissions, and the built-in presets, each with the
// same deny and ask rules.
var RuleSets = []RuleSet{
	{Name: "narrow", Mode: "default", Allow: []string{
		"Bash(git status:*)", "Bash(git diff:*)", "Bash(git log:*)", "Bash(ls:*)", "Bash(cat:*)",
		"Bash(grep:*)", "Bash(echo:*)", "Bash(find:*)", "Bash(head:*)", "Bash(tail:*)", "Bash(wc:*)",
		"Bash(python3:*)", "Bash(npm test:*)", "Bash(make:*)", "Bash(sed:*)", "Bash(awk:*)",
		"Read(**)", "Edit(src/**)",
	}},
	{Name: "broad", Mode: "default", Allow: []string{"Bash", "Read(**)", "Edit(**)", "Write(**)"}},
	{Name: "bypass", Mode: "bypassPermissions"},
	{Name: "acceptEdits", Mode: "acceptEdits", Allow: []string{"Bash"}},
	{Name: "preset-standard", Preset: "standard"},
	{Name: "preset-open", Preset: "open"},
}

// NewEngine makes the engine for a rule set in the world.
func NewEngine(w *World, rs RuleSet) (*session.Engine, error) {
	s := frontmatter.Settings{Vibing: true, Mode: rs.Mode, Preset: rs.Preset,
		Allow: rs.Allow, Ask: append(append([]string(nil), secretAsk...), rs.Ask...),
		Deny: append(append([]string(nil), secretDeny...), rs.Deny...)}
	e, err := session.New(config.DefaultConfig(), s, session.Options{Cwd: w.Project, Home: w.Home, ChatFile: w.Chat, ProjectRoot: w.Project, Fresh: true})
	if err != nil {
		return nil, fmt.Errorf("rule set %s: %v", rs.Name, err)
	}
	return e, nil
}

// An Escape is one real effect of an allowed line that a deny or ask rule,
// the guard or a file that runs code covers.
type Escape struct {
	Effect   string // "read /w/proj/.env", "exec rm -f x", "secret in output: /w/proj/.env"
	Decision session.Decision
}

func (e Escape) String() string {
	d := e.Decision
	by := d.Rule
	if by == "" {
		by = d.Source
	}
	return fmt.Sprintf("%s → %s by %s", e.Effect, d.Decision, by)
}

// Judge holds each effect of a run to the rules: every read, write and
// program run is decided as its own tool call.
func Judge(d Decider, w *World, eff *Effects) []Escape {
	var out []Escape
	held := func(dec session.Decision) bool {
		if dec.Decision == session.Allow {
			return false
		}
		switch dec.Source {
		case session.SourceGuard, session.SourceAutorun:
			return true
		case session.SourceMode:
			return false
		}
		return dec.Rule != ""
	}
	file := func(kind, tool, p string) {
		if !inWorld(w, p) {
			return
		}
		if tool == "Read" && isDir(p) {
			return // a folder's listing: names, not content
		}
		dec := d.Decide(tool, map[string]any{"file_path": p})
		if held(dec) {
			out = append(out, Escape{Effect: kind + " " + p, Decision: dec})
		}
	}
	for _, p := range eff.Reads {
		file("read", "Read", p)
	}
	for _, p := range eff.Links {
		file("hard link to", "Read", p)
	}
	for _, p := range eff.Writes {
		file("write", "Write", p)
	}
	for _, argv := range eff.Execs {
		if len(argv) == 0 {
			continue
		}
		line := quoteArgv(argv)
		dec := d.Decide("Bash", map[string]any{"command": line})
		if held(dec) && strings.HasPrefix(dec.Rule, "Bash") {
			out = append(out, Escape{Effect: "exec " + line, Decision: dec})
		}
	}
	for _, p := range w.Secret(eff.Output) {
		dec := d.Decide("Read", map[string]any{"file_path": p})
		if held(dec) {
			out = append(out, Escape{Effect: "secret in output: " + p, Decision: dec})
		}
	}
	return out
}

// Touches reports whether any effect of a run is not allowed as a tool
// call of its own: an everyday line whose every effect is allowed and that
// the engine asked or refused is a false positive.
func Touches(d Decider, w *World, eff *Effects) (string, bool) {
	for _, p := range eff.Reads {
		if inWorld(w, p) && !isDir(p) && d.Decide("Read", map[string]any{"file_path": p}).Decision != session.Allow {
			return "read " + p, true
		}
	}
	for _, p := range eff.Writes {
		if inWorld(w, p) && d.Decide("Write", map[string]any{"file_path": p}).Decision != session.Allow {
			return "write " + p, true
		}
	}
	for _, p := range eff.Links {
		if d.Decide("Read", map[string]any{"file_path": p}).Decision != session.Allow {
			return "hard link to " + p, true
		}
	}
	if s := w.Secret(eff.Output); len(s) > 0 {
		return "secret in output", true
	}
	return "", false
}

// inWorld reports whether p is in the world's project or home (the system's
// own files, /tmp and /proc are not what the rules name).
func inWorld(w *World, p string) bool {
	return p == w.Project || strings.HasPrefix(p, w.Project+"/") || p == w.Home || strings.HasPrefix(p, w.Home+"/")
}

// isDir reports whether p is a folder of the template (the run's copy is
// gone when the judge runs; the template has the same tree).
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// quoteArgv spells argv as one shell command (the program by its base
// name, as rules name it).
func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if i == 0 {
			a = filepath.Base(a)
		}
		parts[i] = q(a)
	}
	return strings.Join(parts, " ")
}
