package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/tools"
)

// rule is a compiled rule with where it came from.
type rule struct {
	*matcher.Rule
	text   string // the text as written (for invalid rules, which have no *matcher.Rule)
	source string // SourceDenyList/SourceAskList/SourceAllowList or SourcePreset
	tool   string // for invalid rules: the tool they seem to name ("" = any tool)
	err    error  // the rule could not be parsed: matches in deny/ask, never in allow
}

func (r *rule) String() string {
	if r.Rule != nil {
		return r.Rule.Text
	}
	return r.text
}

// matches reports whether r fires for c in list, failing closed for rules
// that could not be parsed.
func (r *rule) matches(c *matcher.Call, list matcher.List) bool {
	if r.err != nil {
		if list == matcher.AllowList {
			return false
		}
		return r.tool == "" || tools.Same(r.tool, c.Tool)
	}
	return r.Match(c, list)
}

// Engine decides tool calls for one chat. It is safe for concurrent use.
type Engine struct {
	cfg     *config.Config
	env     matcher.Env
	mode    string
	preset  string
	resumed bool
	broken  error // settings that cannot be used: every call is denied with this

	guarded  []string // absolute paths (files or folders) no tool may modify
	chatBase string   // the chat file's name, looked for inside script texts

	mu          sync.RWMutex
	deny        []*rule
	ask         []*rule
	allow       []*rule
	ownAllow    map[string]bool // texts of the person's own allow rules (chat list, always-allow answers)
	presetAllow map[string]bool // texts of the preset's allow rules
	sessDeny    []*rule
	sessAllow   []*rule
	onceGranted map[string]bool
	index       *sync.Map // tool name -> *ruleSet, rebuilt after every change

	shell shellTrack // where the agent's shell may be (DecideIn)

	errs []error // problems found when loading (reported, and failing closed)
}

// New compiles the chat's settings. When the settings hold an unknown preset
// or mode it returns a non-nil Engine that denies every call (with the error
// as its reason) together with the error. Invalid rules are returned as an
// error too; the Engine then fails closed on them: an invalid deny or ask rule
// fires for every call of the tool it names, an invalid allow rule never fires.
func New(cfg *config.Config, s frontmatter.Settings, opts Options) (*Engine, error) {
	if cfg == nil {
		cfg = config.DefaultConfig()
	}
	e := &Engine{cfg: cfg, ownAllow: map[string]bool{}, presetAllow: map[string]bool{}, onceGranted: map[string]bool{}, index: new(sync.Map)}
	if err := e.setEnv(opts); err != nil {
		e.broken = err
		return e, err
	}
	e.resumed = opts.Resumed || s.SessionID != ""
	e.guarded = guardedPaths(cfg, opts, e.env)
	if opts.ChatFile != "" {
		e.chatBase = filepath.Base(opts.ChatFile)
	}

	e.mode = s.Mode
	e.preset = s.Preset
	if e.preset != "" {
		p, ok := cfg.Preset(e.preset)
		if !ok {
			e.broken = fmt.Errorf("unknown preset %q (known: %s); every tool call is denied until the chat names a known preset", e.preset, strings.Join(cfg.PresetNames(), ", "))
			return e, e.broken
		}
		if e.mode == "" {
			e.mode = p.Mode
		}
		e.deny = append(e.deny, e.compile(p.Deny, SourcePreset)...)
		e.ask = append(e.ask, e.compile(p.Ask, SourcePreset)...)
		e.allow = append(e.allow, e.compile(p.Allow, SourcePreset)...)
	}
	if e.mode == "" {
		e.mode = "default"
	}
	if !config.ValidMode(e.mode) {
		e.broken = fmt.Errorf("unknown permissions_mode %q (use one of %s); every tool call is denied until it is fixed", e.mode, strings.Join(config.Modes, ", "))
		return e, e.broken
	}
	e.deny = append(e.deny, e.compile(s.Deny, SourceDenyList)...)
	e.ask = append(e.ask, e.compile(s.Ask, SourceAskList)...)
	e.allow = append(e.allow, e.compile(s.Allow, SourceAllowList)...)
	e.sessDeny = e.compile(opts.SessionDeny, SourceSession)
	e.sessAllow = e.compile(opts.SessionAllow, SourceSession)
	for _, r := range e.allow {
		if r.source == SourcePreset {
			e.presetAllow[r.String()] = true
		} else {
			e.ownAllow[r.String()] = true
		}
	}
	return e, errors.Join(e.errs...)
}

func (e *Engine) setEnv(opts Options) error {
	cwd := opts.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("cannot find the working directory: %w", err)
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return fmt.Errorf("cannot resolve the working directory %q: %w", cwd, err)
	}
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	e.env = matcher.Env{Cwd: filepath.Clean(abs), Home: home}
	return nil
}

// compile parses rule texts; invalid ones are kept (failing closed) and
// recorded in e.errs.
func (e *Engine) compile(texts []string, source string) []*rule {
	out := make([]*rule, 0, len(texts))
	for _, t := range texts {
		r, err := matcher.ParseRule(t)
		if err != nil {
			e.errs = append(e.errs, err)
			out = append(out, &rule{text: t, source: source, tool: toolOfInvalid(t), err: err})
			continue
		}
		out = append(out, &rule{Rule: r, text: t, source: source})
	}
	return out
}

// toolOfInvalid guesses the tool an invalid rule names, so that it fails
// closed for that tool only; "" means every tool.
func toolOfInvalid(text string) string {
	name := strings.TrimSpace(text)
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = strings.TrimSpace(name[:i])
	}
	if c, ok := tools.Lookup(name); ok {
		return c.Name
	}
	return ""
}

// Resumed reports whether the engine treats the chat as a resumed session.
func (e *Engine) Resumed() bool { return e.resumed }

// Mode returns the effective permission mode.
func (e *Engine) Mode() string { return e.mode }

// DeniedTools lists the tools the chat denies outright (bare deny rules of
// the chat and its preset, with the tools such a rule covers: a bare Edit or
// Write deny covers every file-writing tool, a bare Read deny the searches),
// for a backend that can hide them from the model.
func (e *Engine) DeniedTools() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	seen := map[string]bool{}
	var out []string
	for _, r := range e.deny {
		if r.Rule == nil || r.Rule.HasArg() || r.Rule.IsRegex() || strings.Contains(r.Rule.Tool, "*") {
			continue
		}
		for _, t := range coveredTools(r.Rule.Tool) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// coveredTools lists the tools a bare rule for tool speaks about (SPEC §3):
// Edit and Write rules cover every file-writing tool, Read rules the tools
// that read below a path.
func coveredTools(tool string) []string {
	switch tool {
	case "Edit", "Write":
		return []string{tool, otherOf(tool), "MultiEdit", "NotebookEdit"}
	case "Read":
		return []string{"Read", "NotebookRead", "Grep", "Glob", "LS"}
	}
	return []string{tool}
}

func otherOf(tool string) string {
	if tool == "Edit" {
		return "Write"
	}
	return "Edit"
}

// Env returns where the engine resolves paths.
func (e *Engine) Env() matcher.Env { return e.env }

// Err returns the error that makes the engine deny everything, if any.
func (e *Engine) Err() error { return e.broken }

// Prepare prepares a call in this engine's environment.
func (e *Engine) Prepare(tool string, input map[string]any) *matcher.Call {
	// Tool names never carry spaces; trimming keeps " Bash" from slipping past "Bash" rules.
	return matcher.Prepare(strings.TrimSpace(tool), input, e.env)
}

// Decide runs the pipeline for one tool call.
func (e *Engine) Decide(tool string, input map[string]any) Decision {
	return e.DecideCall(e.prepareFor(tool, input, e.env))
}

// GrantSession records an allow_for_session (allow=true) or deny_for_session
// answer as a rule that lasts for this engine's life.
func (e *Engine) GrantSession(text string, allow bool) error {
	r, err := matcher.ParseRule(text)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cr := &rule{Rule: r, text: text, source: SourceSession}
	e.dropIndex()
	if allow {
		e.sessAllow = append(e.sessAllow, cr)
	} else {
		e.sessDeny = append(e.sessDeny, cr)
	}
	return nil
}

// GrantOnce allows tool for the rest of the session (the "once" policy).
func (e *Engine) GrantOnce(tool string) {
	name, _ := tools.Canonical(tool)
	e.mu.Lock()
	e.onceGranted[name] = true
	e.mu.Unlock()
}

// AddRule adds a rule to the chat's allow or deny list in memory (an
// always_allow / always_deny answer applied at once). It returns the
// canonical rule text's error when the rule is invalid.
func (e *Engine) AddRule(list matcher.List, text string) error {
	r, err := matcher.ParseRule(text)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dropIndex()
	switch list {
	case matcher.AllowList:
		e.allow = append(e.allow, &rule{Rule: r, text: text, source: SourceAllowList})
		e.ownAllow[r.Text] = true
	case matcher.DenyList:
		e.deny = append(e.deny, &rule{Rule: r, text: text, source: SourceDenyList})
	case matcher.AskList:
		e.ask = append(e.ask, &rule{Rule: r, text: text, source: SourceAskList})
	}
	return nil
}
