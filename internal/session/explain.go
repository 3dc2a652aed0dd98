package session

import (
	"fmt"
	"strings"

	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/tools"
)

// Explanation is the effective permissions of a chat in plain words (the
// Daycare audit): for each tool, what runs, what asks, what is refused, why.
type Explanation struct {
	Mode      string       `json:"mode"`
	Preset    string       `json:"preset,omitempty"`
	Resumed   bool         `json:"resumed"`
	ResumeAsk string       `json:"resume_ask"`
	Cwd       string       `json:"cwd"`
	Tools     []ToolReport `json:"tools"`
	Regex     []string     `json:"regex_rules,omitempty"`
	Defaults  []string     `json:"default_deny_rules"`
	Guarded   []string     `json:"guarded"`
	Effective []string     `json:"effective"` // one plain sentence per line
	Errors    []string     `json:"errors,omitempty"`
	// Layers lists every rule with its layer and source, highest layer
	// first, with warnings for rules that never count or open much.
	Layers []LayerRule `json:"layers,omitempty"`
	// Notes says what the layers changed (a mode overruled, bypass off).
	Notes    []string `json:"notes,omitempty"`
	Switches Switches `json:"switches"`
}

// ToolReport is one tool's line in an Explanation.
type ToolReport struct {
	Tool    string   `json:"tool"`
	Level   string   `json:"level"`
	Default Verdict  `json:"default"` // what happens to a call no rule names: allow | ask | deny
	Policy  string   `json:"policy,omitempty"`
	Allow   []string `json:"allow,omitempty"`
	Ask     []string `json:"ask,omitempty"`
	Deny    []string `json:"deny,omitempty"`
	Summary string   `json:"summary"`
}

// DefaultDenyNames lists the built-in destructive-command rules in words.
var DefaultDenyNames = []string{
	"recursive rm (-r is enough) of /, a top-level or system folder or anything inside one, ~, ~user or anything inside ~, " +
		"or the working folder itself or a folder above it (inside the working folder and /tmp is fine)",
	"any privilege escalation: sudo, doas, pkexec, su, run0, runuser",
	"dd writing to a device",
	"mkfs and mkfs.*",
	"chmod -R / chown -R on /, ~ or a top-level folder, and chmod -R to world-writable (777, o+w) anywhere",
	"git push --force (or +ref) that may rewrite main or master: onto main/master/HEAD, with no branch named, --mirror",
	"a downloaded script run on the same line (curl … | sh, curl -o x.sh … && sh x.sh)",
	"the fork bomb",
	"on a line that does not parse, the same rules on its raw words",
}

// Explain reports the engine's effective permissions.
func (e *Engine) Explain() Explanation {
	x := Explanation{Mode: e.mode, Preset: e.preset, Resumed: e.resumed, ResumeAsk: e.cfg.ResumeAsk, Cwd: e.env.Cwd, Guarded: dedupe(e.guardList())}
	for _, err := range e.errs {
		x.Errors = append(x.Errors, err.Error())
	}
	if e.broken != nil {
		x.Errors = append(x.Errors, e.broken.Error())
		x.Effective = []string{"Every tool call is denied: " + e.broken.Error() + "."}
		return x
	}
	if e.cfg.DefaultDeny() {
		x.Defaults = DefaultDenyNames
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	x.Layers, x.Notes, x.Switches = e.layerRules(), e.Notes(), e.sw

	names := tools.Names()
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	for _, list := range [][]*rule{e.deny, e.ask, e.allow} {
		for _, r := range list {
			if r.Rule != nil && r.Rule.IsRegex() {
				continue
			}
			t := r.tool
			if r.Rule != nil {
				t = r.Rule.Tool
			}
			if t != "" && !seen[t] {
				seen[t] = true
				names = append(names, t)
			}
		}
	}
	for _, list := range [][]*rule{e.deny, e.ask, e.allow} {
		for _, r := range list {
			if r.Rule != nil && r.Rule.IsRegex() {
				x.Regex = append(x.Regex, r.String())
			}
		}
	}
	for _, n := range names {
		tr := e.toolReport(n)
		x.Tools = append(x.Tools, tr)
		x.Effective = append(x.Effective, tr.Summary)
	}
	x.Effective = append(x.Effective, e.resumeLine())
	if len(x.Regex) > 0 {
		x.Effective = append(x.Effective, "Regex rules also apply to every tool: "+strings.Join(x.Regex, ", ")+".")
	}
	if len(x.Defaults) > 0 {
		x.Effective = append(x.Effective, "Always refused, in every mode: "+strings.Join(x.Defaults, "; ")+".")
	}
	x.Effective = append(x.Effective, "No tool may modify vibing's own permission files: "+strings.Join(x.Guarded, ", ")+".")
	x.Effective = append(x.Effective, AutorunSummary)
	x.Effective = append(x.Effective, "Tools that run a command (Monitor, MCP and other tools with a \"command\") are also checked as Bash on that command.")
	return x
}

// ResumeGate is why prompts in a resumed session are safe: the evidence is
// tests/e2e/resume_hook_test.go (the real CLI on --resume) and
// TestResumedChat (a CLI that never sends can_use_tool).
const ResumeGate = "vibing-agent run registers a PreToolUse hook callback that the claude CLI calls before every tool call, also on --resume, and answers it with your allow or deny, so it does not depend on the permission callback (can_use_tool) that some CLI and SDK versions skip on resume"

// resumeLine says which resumed-session behaviour applies to this chat.
func (e *Engine) resumeLine() string {
	prompt := e.cfg.ResumeAsk == config.ResumeAskPrompt
	switch {
	case e.mode == "dontAsk":
		return "dontAsk mode never prompts, in a fresh or a resumed session: anything that would ask is denied."
	case e.resumed && prompt:
		return "This chat resumes a session and asks still prompt (resume_ask = prompt): " + ResumeGate + "."
	case e.resumed:
		return "This chat resumes a session: anything that would ask is denied with guidance (resume_ask = deny). resume_ask = \"prompt\" asks instead, which is safe: " + ResumeGate + "."
	case prompt:
		return "Asks prompt. When this chat resumes its session (reopened after its process ended, idle for live_timeout_s, a fork's first message), they still prompt (resume_ask = prompt)."
	default:
		return "Asks prompt. When this chat resumes its session (reopened after its process ended, idle for live_timeout_s, a fork's first message), anything that would ask is denied with guidance (resume_ask = deny)."
	}
}

func (e *Engine) toolReport(name string) ToolReport {
	tr := ToolReport{Tool: name, Level: string(tools.LevelOf(name))}
	if p, ok := e.policyOf(tools.SameKey(name)); ok {
		tr.Policy = p
	}
	pick := func(list []*rule) []string {
		var out []string
		for _, r := range list {
			if r.Rule != nil && r.Rule.IsRegex() {
				continue
			}
			if e.ruleNames(r, name) {
				out = append(out, r.String())
			}
		}
		return out
	}
	tr.Deny, tr.Ask, tr.Allow = pick(e.deny), append(pick(e.managedAsk), pick(e.ask)...), pick(e.allow)

	// What a plain call of the tool inside the working directory meets.
	probe := command.Bare(name, e.env)
	modeD := e.byMode(probe)
	d := e.finishAsk(probe, modeD)
	tr.Default = d.Decision
	// Asks that cannot be shown (resumed session, dontAsk) are refusals.
	noPrompt := ""
	if probe2 := e.finishAsk(probe, Decision{Decision: Ask}); probe2.Decision == Deny {
		noPrompt = "approval prompts are off in resumed sessions"
		if e.mode == "dontAsk" {
			noPrompt = "dontAsk mode never prompts"
		}
	}

	var parts []string
	// a bare rule names the whole tool (or one that covers it: Edit for
	// Write, Read for Grep); the lists hold only rules about this tool
	isBare := func(r string) bool { return !strings.Contains(r, "(") }
	bare := func(list []string) string {
		for _, r := range list {
			if isBare(r) {
				return r
			}
		}
		return ""
	}
	others := func(list []string) []string {
		var out []string
		for _, r := range list {
			if !isBare(r) {
				out = append(out, r)
			}
		}
		return out
	}
	switch {
	case bare(tr.Deny) != "":
		parts = append(parts, "refused (deny: "+bare(tr.Deny)+")")
	case bare(tr.Ask) != "" && !e.askOverridden(bare(tr.Ask)):
		if noPrompt != "" {
			parts = append(parts, "refused: it asks (ask: "+bare(tr.Ask)+"), but "+noPrompt)
		} else {
			parts = append(parts, "asks every time (ask: "+bare(tr.Ask)+")")
		}
	case bare(tr.Allow) != "":
		parts = append(parts, "runs without asking (allow: "+bare(tr.Allow)+")")
	case modeD.Decision == Ask && d.Decision == Deny:
		parts = append(parts, "refused by default: it would ask in "+e.mode+" mode, but "+noPrompt)
	default:
		parts = append(parts, plainDefault(d.Decision)+" by default in "+e.mode+" mode")
	}
	if l := others(tr.Allow); len(l) > 0 {
		parts = append(parts, "runs: "+strings.Join(l, ", "))
	}
	if l := others(tr.Ask); len(l) > 0 {
		verb := "asks: "
		if noPrompt != "" {
			verb = "refused (would ask, " + noPrompt + "): "
		}
		parts = append(parts, verb+strings.Join(l, ", "))
	}
	if l := others(tr.Deny); len(l) > 0 {
		parts = append(parts, "refused: "+strings.Join(l, ", "))
	}
	tr.Summary = fmt.Sprintf("%s (%s): %s.", name, tr.Level, strings.Join(parts, "; "))
	return tr
}

// ruleNames reports whether rule r is about tool name.
func (e *Engine) ruleNames(r *rule, name string) bool {
	t := r.tool
	if r.Rule != nil {
		t = r.Rule.Tool
	}
	if t == "" {
		return r.err != nil // an invalid rule naming no tool fails closed for all
	}
	if tools.Same(t, name) {
		return true
	}
	if info, ok := tools.Lookup(t); ok {
		for _, c := range coveredTools(info.Name) {
			if c == name {
				return true
			}
		}
	}
	if strings.HasSuffix(t, "*") && strings.HasPrefix(strings.ToLower(name), strings.ToLower(strings.TrimSuffix(t, "*"))) {
		return true
	}
	return false
}

func plainDefault(d Verdict) string {
	switch d {
	case Allow:
		return "runs without asking"
	case Ask:
		return "asks"
	}
	return "refused"
}

// Text renders the explanation in plain words.
func (x Explanation) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mode: %s", x.Mode)
	if x.Preset != "" {
		fmt.Fprintf(&b, " (preset %s)", x.Preset)
	}
	fmt.Fprintf(&b, "\nWorking directory: %s\n", x.Cwd)
	if x.Resumed {
		fmt.Fprintf(&b, "Resumed session (resume_ask = %s)\n", x.ResumeAsk)
	}
	for _, e := range x.Errors {
		fmt.Fprintf(&b, "ERROR: %s\n", e)
	}
	b.WriteString("\n")
	for _, l := range x.Effective {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	b.WriteString(layerText(x))
	return b.String()
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
