package session

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/cowmap"
	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/tools"
)

// rule is a compiled rule with where it came from.
type rule struct {
	*matcher.Rule
	text   string      // the text as written (for invalid rules, which have no *matcher.Rule)
	source string      // SourceDenyList/SourceAskList/SourceAllowList, SourcePreset, SourceSession or "<layer>:<file>"
	layer  string      // LayerManaged ... LayerSession
	origin string      // the file it was written in: "chat", "preset", "session" or "<layer>:<file>"
	tool   string      // for invalid rules: the tool they seem to name ("" = any tool)
	key    string      // for invalid rules: tool as tools.Same compares names (tools.SameKey)
	info   *tools.Info // for invalid rules: tool's entry in the table (nil for none)
	err    error       // the rule could not be parsed: matches in deny/ask, never in allow
}

func (r *rule) String() string {
	if r.Rule != nil {
		return r.Rule.Text
	}
	return r.text
}

// matches reports whether r fires for c in list, failing closed for rules
// that could not be parsed.
func (r *rule) matches(c *command.Call, list matcher.List) bool {
	if r.err != nil {
		return r.invalidMatches(c, list)
	}
	if r.Rule.Skips(c, list) {
		return false // a file rule the path cannot match: no call of the full match
	}
	return r.Match(c, list)
}

// invalidMatches is matches for a rule that could not be parsed.
func (r *rule) invalidMatches(c *command.Call, list matcher.List) bool {
	if list == matcher.AllowList {
		return false
	}
	return r.tool == "" || r.key == c.Key
}

// toolKey is the rule's tool as tools.Same compares names, worked out
// when the rule was read: a compiled rule's (matcher.Rule.ToolKey), or
// the one an invalid rule seems to name.
func (r *rule) toolKey() string {
	if r.Rule != nil {
		return r.Rule.ToolKey()
	}
	return r.key
}

// toolInfo is the table entry of the rule's tool, found when the rule was
// read (matcher.Rule.ToolInfo, or the tool an invalid rule seems to name);
// nil for an MCP tool, a prefix, a regex or an invalid rule naming none.
func (r *rule) toolInfo() *tools.Info {
	if r.Rule != nil {
		return r.Rule.ToolInfo()
	}
	return r.info
}

// Engine decides tool calls for one chat. It is safe for concurrent use.
type Engine struct {
	cfg     *config.Config
	env     command.Env
	mode    string
	preset  string
	resumed bool
	broken  error // settings that cannot be used: every call is denied with this
	ref     bool  // the slow twin (Options.Reference)

	// guardSet holds the absolute paths (files or folders) no tool may
	// modify, resolved on first use (guards): a process that decides one
	// call which names no path never resolves them
	guardSet  *command.Guarded
	guardOnce sync.Once
	guardMake func() []string
	chatBase  string // the chat file's name, looked for inside script texts

	// the folders core.hooksPath names (hookspath.go), read on first use
	hooks     []string
	hooksOnce sync.Once

	// what lets a word's path from the working folder go unbuilt when no
	// file that runs code by itself can be named so (autorun_names.go)
	cwdNames     cwdNames
	cwdNamesOnce sync.Once

	sw    Switches
	notes []string // what the layers changed, for explain (a mode that lost, a bypass refused)

	mu          sync.RWMutex
	deny        []*rule
	managedAsk  []*rule // asks no lower allow, grant, answer or mode can weaken
	ask         []*rule
	allow       []*rule
	ownAllow    map[string]bool   // texts of the person's own allow rules (chat list, always-allow answers)
	presetAllow map[string]bool   // texts of the preset's allow rules
	layerAllow  map[string]bool   // origin + "\x00" + text of the other layers' allow rules
	allowSrc    map[string]string // allow rule text -> the source a decision by the first rule of that text names
	sessDeny    []*rule
	sessAllow   []*rule
	untrusted   []*rule // allow rules of untrusted project files: they only explain an ask (noteUntrusted)
	onceGranted map[string]bool
	policies    map[string]string     // cfg.Policies by the key of the tool each names (policyOf)
	index       *cowmap.Map[*ruleSet] // tool name -> its rules, rebuilt after every change
	kernel      map[string]bool       // deny rules the sandbox holds whole (HoldByKernel)

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
	e := &Engine{cfg: cfg, ownAllow: map[string]bool{}, presetAllow: map[string]bool{}, layerAllow: map[string]bool{}, onceGranted: map[string]bool{}, index: new(cowmap.Map[*ruleSet])}
	e.policies = policyKeys(cfg.Policies)
	e.ref = opts.Reference
	if err := e.setEnv(opts); err != nil {
		e.broken = err
		return e, err
	}
	// a forked chat's first run resumes the session it forks (fork_of)
	e.resumed = !opts.Fresh && (opts.Resumed || s.SessionID != "" || s.ForkOf != "")
	if opts.Broken != nil {
		e.broken = opts.Broken
		env := e.env
		e.guardMake = func() []string { return guardedPaths(cfg, opts, env) }
		return e, e.broken
	}
	env := e.env // the environment the engine was made for, not a later DecideIn's
	e.guardMake = func() []string {
		out := guardedPaths(cfg, opts, env)
		for _, p := range opts.Guard {
			out = appendGuard(out, p, env)
		}
		return out
	}
	if opts.ChatFile != "" {
		e.chatBase = filepath.Base(opts.ChatFile)
	}

	e.sw = opts.Switches
	e.preset = s.Preset
	var preset config.Preset
	if e.preset != "" {
		p, ok := cfg.Preset(e.preset)
		if !ok {
			e.broken = fmt.Errorf("unknown preset %q (known: %s); every tool call is denied until the chat names a known preset", e.preset, strings.Join(cfg.PresetNames(), ", "))
			return e, e.broken
		}
		preset = p
	}
	if err := e.setMode(s, preset, opts.Policy); err != nil {
		e.broken = err
		return e, err
	}
	lower := !e.sw.ManagedRulesOnly
	for _, f := range opts.Policy {
		if f.Layer != LayerManaged && !lower {
			continue
		}
		src := f.Layer + ":" + f.Name
		e.deny = append(e.deny, e.compile(f.Deny, src, f.Layer, src)...)
		if f.Layer == LayerManaged {
			e.managedAsk = append(e.managedAsk, e.compile(f.Ask, src, f.Layer, src)...)
		} else {
			e.ask = append(e.ask, e.compile(f.Ask, src, f.Layer, src)...)
		}
		e.allow = append(e.allow, e.compile(f.Allow, src, f.Layer, src)...)
		for _, t := range f.Untrusted {
			if r, err := e.parseRule(t); err == nil { // (an invalid one: the file's own warning says so)
				e.untrusted = append(e.untrusted, &rule{Rule: r, text: t, source: src, layer: f.Layer, origin: src})
			}
		}
	}
	if lower {
		e.deny = append(e.deny, e.compile(preset.Deny, SourcePreset, LayerChat, SourcePreset)...)
		e.ask = append(e.ask, e.compile(preset.Ask, SourcePreset, LayerChat, SourcePreset)...)
		e.allow = append(e.allow, e.compile(preset.Allow, SourcePreset, LayerChat, SourcePreset)...)
		e.deny = append(e.deny, e.compile(s.Deny, SourceDenyList, LayerChat, LayerChat)...)
		e.ask = append(e.ask, e.compile(s.Ask, SourceAskList, LayerChat, LayerChat)...)
		e.allow = append(e.allow, e.compile(s.Allow, SourceAllowList, LayerChat, LayerChat)...)
		e.sessDeny = e.compile(opts.SessionDeny, SourceSession, LayerSession, SourceSession)
		if !e.sw.DisableSessionGrants {
			e.sessAllow = e.compile(opts.SessionAllow, SourceSession, LayerSession, SourceSession)
		}
	} else if len(s.Deny)+len(s.Ask)+len(s.Allow)+len(preset.Deny)+len(preset.Ask)+len(preset.Allow) > 0 {
		e.notes = append(e.notes, "managed policy: only managed rules apply (managed_rules_only); the chat's, the preset's and every other layer's rules are ignored")
	}
	for _, r := range e.allow {
		e.noteAllowSource(r)
		switch r.origin {
		case SourcePreset:
			e.presetAllow[r.String()] = true
		case LayerChat:
			e.ownAllow[r.String()] = true
		default:
			e.layerAllow[r.origin+"\x00"+r.String()] = true
		}
	}
	return e, errors.Join(e.errs...)
}

// noteAllowSource records the source of allow rule r's text, unless an
// earlier allow rule has that text (sourceOfAllow names the first).
func (e *Engine) noteAllowSource(r *rule) {
	if e.allowSrc == nil {
		e.allowSrc = map[string]string{}
	}
	if _, ok := e.allowSrc[r.String()]; !ok {
		e.allowSrc[r.String()] = r.decisionSource(SourceAllowList)
	}
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
	e.env = command.NewEnv(filepath.Clean(abs), home)
	return nil
}

// compile parses rule texts; invalid ones are kept (failing closed) and
// recorded in e.errs (with the file they come from, for a layer's rule).
func (e *Engine) compile(texts []string, source, layer, origin string) []*rule {
	out := make([]*rule, 0, len(texts))
	for _, t := range texts {
		r, err := e.parseRule(t)
		if err != nil {
			if layer != LayerChat && layer != LayerSession {
				err = fmt.Errorf("%s: %w", source, err)
			}
			e.errs = append(e.errs, err)
			bad := &rule{text: t, source: source, layer: layer, origin: origin, err: err}
			if in := toolOfInvalid(t); in != nil {
				bad.tool, bad.key, bad.info = in.Name, tools.SameKeyLower(in.LowerName()), in
			}
			out = append(out, bad)
			continue
		}
		out = append(out, &rule{Rule: r, text: t, source: source, layer: layer, origin: origin})
	}
	return out
}

// setMode picks the effective mode (SPEC §11: the highest layer that sets
// one): a managed, user or project vibing policy file's mode, then the
// chat's own (or its preset's), then a Claude settings file's defaultMode,
// then "default". Under disable_bypass a bypassPermissions mode falls back
// to default, with a note.
func (e *Engine) setMode(s frontmatter.Settings, preset config.Preset, files []PolicyFile) error {
	from := ""
	for _, f := range files {
		if f.Mode != "" && !f.Default {
			e.mode, from = f.Mode, f.Layer+":"+f.Name
			break
		}
	}
	if e.mode == "" {
		e.mode = s.Mode
		if e.mode == "" {
			e.mode = preset.Mode
		}
		if e.mode != "" {
			from = "chat"
		}
	} else if s.Mode != "" && s.Mode != e.mode {
		e.notes = append(e.notes, fmt.Sprintf("mode %s comes from %s; the chat's permissions_mode %s is overruled by that higher layer", e.mode, from, s.Mode))
	}
	if e.mode == "" {
		for _, f := range files {
			if f.Mode != "" && f.Default {
				e.mode, from = f.Mode, f.Layer+":"+f.Name
				break
			}
		}
	}
	if s.ModeNote != "" {
		e.notes = append(e.notes, s.ModeNote)
	}
	if e.mode == "" {
		e.mode = "default"
	}
	if !config.ValidMode(e.mode) {
		what := "permissions_mode"
		if from != "chat" && from != "" {
			what = "mode in " + from
		}
		return fmt.Errorf("unknown %s %q (use one of %s); every tool call is denied until it is fixed", what, e.mode, strings.Join(config.Modes, ", "))
	}
	if e.mode == "bypassPermissions" && e.sw.DisableBypass {
		e.notes = append(e.notes, "bypassPermissions mode is turned off by managed policy (disable_bypass): the chat runs in default mode")
		e.mode = "default"
	}
	return nil
}

// Notes says what the policy layers changed (a mode overruled, bypass
// refused, lower rules ignored), one sentence each.
func (e *Engine) Notes() []string { return append([]string(nil), e.notes...) }

// Switches returns the managed switches in force.
func (e *Engine) Switches() Switches { return e.sw }

// toolOfInvalid guesses the tool an invalid rule names, so that it fails
// closed for that tool only; nil means every tool.
func toolOfInvalid(text string) *tools.Info {
	name := strings.TrimSpace(text)
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = strings.TrimSpace(name[:i])
	}
	return tools.Find(name)
}

// policyKeys is policies by the key of the tool each names (tools.SameKey),
// worked out once, so that a decision looks its tool's up by the call's Key.
func policyKeys(policies map[string]string) map[string]string {
	out := make(map[string]string, len(policies))
	for tool, p := range policies {
		out[tools.SameKey(tool)] = p
	}
	return out
}

// bashKey is Bash's key (tools.SameKey), for the policy of Bash.
var bashKey = tools.SameKey("Bash")

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
func (e *Engine) Env() command.Env { return e.env }

// Err returns the error that makes the engine deny everything, if any.
func (e *Engine) Err() error { return e.broken }

// Prepare prepares a call in this engine's environment.
func (e *Engine) Prepare(tool string, input map[string]any) *command.Call {
	// Tool names never carry spaces; trimming keeps " Bash" from slipping past "Bash" rules.
	return e.prepare(strings.TrimSpace(tool), input, e.env)
}

// prepare is command.Prepare, or PrepareReference for the slow twin.
func (e *Engine) prepare(tool string, input map[string]any, env command.Env) *command.Call {
	return command.PrepareHow(tool, input, env, command.How{Reference: e.ref, Guard: e.guards()})
}

// parseRule is matcher.ParseRule, or ParseReferenceRule for the slow twin.
func (e *Engine) parseRule(text string) (*matcher.Rule, error) {
	if e.ref {
		return matcher.ParseReferenceRule(text)
	}
	return matcher.ParseRule(text)
}

// Decide runs the pipeline for one tool call.
func (e *Engine) Decide(tool string, input map[string]any) Decision {
	c := e.prepareFor(tool, input, e.env)
	d := e.DecideCall(c)
	command.Release(c) // the decision holds strings only: nothing of c outlives it
	return d
}

// GrantSession records an allow_for_session (allow=true) or deny_for_session
// answer as a rule that lasts for this engine's life.
func (e *Engine) GrantSession(text string, allow bool) error {
	if allow && e.sw.DisableSessionGrants {
		return errors.New("allow-for-session answers are turned off by managed policy (disable_session_grants)")
	}
	if e.sw.ManagedRulesOnly {
		return errors.New("only managed rules apply (managed_rules_only), so a session rule would not count")
	}
	r, err := e.parseRule(text)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cr := &rule{Rule: r, text: text, source: SourceSession, layer: LayerSession, origin: SourceSession}
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
	if list == matcher.AllowList && e.sw.DisableAlways {
		return errors.New("always-allow answers are turned off by managed policy (disable_always)")
	}
	if e.sw.ManagedRulesOnly {
		return errors.New("only managed rules apply (managed_rules_only), so a chat rule would not count")
	}
	r, err := e.parseRule(text)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dropIndex()
	switch list {
	case matcher.AllowList:
		e.allow = append(e.allow, &rule{Rule: r, text: text, source: SourceAllowList, layer: LayerChat, origin: LayerChat})
		e.noteAllowSource(e.allow[len(e.allow)-1])
		e.ownAllow[r.Text] = true
	case matcher.DenyList:
		e.deny = append(e.deny, &rule{Rule: r, text: text, source: SourceDenyList, layer: LayerChat, origin: LayerChat})
	case matcher.AskList:
		e.ask = append(e.ask, &rule{Rule: r, text: text, source: SourceAskList, layer: LayerChat, origin: LayerChat})
	}
	return nil
}

// HoldByKernel says which deny rules the sandbox the calls run in holds
// whole (sandbox.View.Held, and the network proxy's deny hosts): for
// them, what a call cannot be seen to do no longer holds the call back —
// the kernel refuses it — so such a call follows the rest of the pipeline
// (the mode) instead of asking in every mode, or being refused where no
// prompt can be shown. What the call is seen to do is still denied, and a
// managed rule is never set aside. nil: no sandbox. (The step for files
// that run code stays: the sandbox cannot keep a new CLAUDE.md in a new
// subfolder or a new .git from being made, so a line the engine cannot see
// through still asks in every mode where the mode would allow it.)
func (e *Engine) HoldByKernel(rules []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.kernel = nil
	if len(rules) > 0 {
		e.kernel = make(map[string]bool, len(rules))
		for _, r := range rules {
			e.kernel[r] = true
		}
	}
}

// Reference returns the slow twin of e as it is now (Options.Reference):
// the same rules of every layer, mode, switches and grants, matched by the
// matcher's reference rules without any shortcut taken for speed. The
// sandbox derives its view with it, so that a speed bug of the engine
// cannot open the sandbox as well.
func (e *Engine) Reference() *Engine {
	e.mu.RLock()
	defer e.mu.RUnlock()
	t := &Engine{cfg: e.cfg, env: e.env, mode: e.mode, preset: e.preset, resumed: e.resumed, broken: e.broken, ref: true,
		guardMake: e.guardMake, chatBase: e.chatBase, sw: e.sw, notes: e.notes, errs: e.errs,
		ownAllow: maps.Clone(e.ownAllow), presetAllow: maps.Clone(e.presetAllow), layerAllow: maps.Clone(e.layerAllow),
		allowSrc: maps.Clone(e.allowSrc), onceGranted: maps.Clone(e.onceGranted), policies: e.policies, index: new(cowmap.Map[*ruleSet]), kernel: maps.Clone(e.kernel)}
	twin := func(rules []*rule) []*rule {
		out := make([]*rule, len(rules))
		for i, r := range rules {
			c := *r
			if r.Rule != nil {
				ref, err := matcher.ParseReferenceRule(r.Rule.Text)
				if err != nil { // (cannot be: the same text parsed as the rule)
					c.Rule, c.err = nil, err
				} else {
					c.Rule = ref
				}
			}
			out[i] = &c
		}
		return out
	}
	t.deny, t.managedAsk, t.ask, t.allow = twin(e.deny), twin(e.managedAsk), twin(e.ask), twin(e.allow)
	t.sessDeny, t.sessAllow, t.untrusted = twin(e.sessDeny), twin(e.sessAllow), twin(e.untrusted)
	return t
}
