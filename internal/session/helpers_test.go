package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/session"
	"vibing/internal/tools"
)

// fixture is the folder tree every test decides in:
//
//	$TMP/proj                      the working directory (project root)
//	$TMP/proj/.vibing/chat/chat.md the chat file (guarded)
//	$TMP/proj/src/a.go
//	$TMP/proj/chatlink -> the chat file
//	$TMP/proj/vlink    -> $TMP/proj/.vibing
//	$TMP/proj/link     -> $TMP/outside
//	$TMP/proj/etclink  -> /etc
//	$TMP/proj/docs/talk.md         a chat file outside .vibing (when a case says chat: docs)
//	$TMP/home                      the home directory
//	$TMP/home/.config/vibing/config.yaml  the user's config file (guarded)
//	$TMP/outside
type fixture struct {
	tmp, proj, home, chat, config string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{
		tmp:    tmp,
		proj:   filepath.Join(tmp, "proj"),
		home:   filepath.Join(tmp, "home"),
		chat:   filepath.Join(tmp, "proj", ".vibing", "chat", "chat.md"),
		config: filepath.Join(tmp, "home", ".config", "vibing", "config.yaml"),
	}
	for _, d := range []string{"proj/.vibing/chat", "proj/src", "proj/docs", "home/.config/vibing", "home/.ssh", "outside"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{f.chat, f.config, filepath.Join(f.proj, "src/a.go"), filepath.Join(f.proj, "docs/talk.md"), filepath.Join(tmp, "outside/x.txt")} {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"proj/chatlink": f.chat,
		"proj/vlink":    filepath.Join(f.proj, ".vibing"),
		"proj/link":     filepath.Join(tmp, "outside"),
		"proj/etclink":  "/etc",
		"proj/homelink": f.home,
	}
	for from, to := range links {
		if err := os.Symlink(to, filepath.Join(tmp, from)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// expand replaces $TMP, $PROJ, $HOME and $CHAT in s.
func (f fixture) expand(s string) string {
	return strings.NewReplacer("$TMP", f.tmp, "$PROJ", f.proj, "$HOME", f.home, "$CHAT", f.chat).Replace(s)
}

func (f fixture) expandAll(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f.expand(s)
	}
	return out
}

func (f fixture) expandInput(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		if s, ok := v.(string); ok {
			v = f.expand(s)
		}
		out[k] = v
	}
	return out
}

// tcase is one decision: chat settings, a call, and what must come out. The
// bypass corpus in testdata/bypass.json uses the same fields.
type tcase struct {
	Name string `json:"name"`

	// chat settings
	Mode      string   `json:"mode,omitempty"`
	Preset    string   `json:"preset,omitempty"`
	Allow     []string `json:"allow,omitempty"`
	Ask       []string `json:"ask,omitempty"`
	Deny      []string `json:"deny,omitempty"`
	SessionID string   `json:"session_id,omitempty"`

	// options and config
	Resumed      bool     `json:"resumed,omitempty"`
	SessionAllow []string `json:"session_allow,omitempty"`
	SessionDeny  []string `json:"session_deny,omitempty"`
	Config       string   `json:"config,omitempty"` // YAML
	ChatFile     string   `json:"chat_file,omitempty"`
	Cwd          string   `json:"cwd,omitempty"`

	// the call
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`

	// expectations ("" = not checked)
	Want      session.Verdict `json:"want"`
	NotAllow  bool            `json:"not_allow,omitempty"` // the decision may be ask or deny but never allow
	Source    string          `json:"source,omitempty"`
	Rule      string          `json:"rule,omitempty"`
	Once      bool            `json:"once,omitempty"`
	ReasonHas []string        `json:"reason_has,omitempty"`
	WantErr   bool            `json:"want_err,omitempty"` // New returns an error
}

func (tc tcase) settings(f fixture) frontmatter.Settings {
	return frontmatter.Settings{
		Vibing:    true,
		SessionID: tc.SessionID,
		Mode:      tc.Mode,
		Preset:    tc.Preset,
		Allow:     f.expandAll(tc.Allow),
		Ask:       f.expandAll(tc.Ask),
		Deny:      f.expandAll(tc.Deny),
	}
}

func (tc tcase) options(f fixture) session.Options {
	o := session.Options{
		Cwd:          f.proj,
		Home:         f.home,
		ChatFile:     f.chat,
		ConfigFile:   f.config,
		Resumed:      tc.Resumed,
		SessionAllow: f.expandAll(tc.SessionAllow),
		SessionDeny:  f.expandAll(tc.SessionDeny),
	}
	if tc.ChatFile != "" {
		o.ChatFile = f.expand(tc.ChatFile)
	}
	if tc.Cwd != "" {
		o.Cwd = f.expand(tc.Cwd)
	}
	return o
}

func parseConfig(t testing.TB, yml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse(strings.NewReader(yml))
	if err != nil {
		t.Fatalf("config.Parse(%q): %v", yml, err)
	}
	return cfg
}

func (tc tcase) engine(t testing.TB, f fixture) (*session.Engine, error) {
	t.Helper()
	return session.New(parseConfig(t, tc.Config), tc.settings(f), tc.options(f))
}

// run builds the engine, decides the call and checks every expectation.
func (tc tcase) run(t *testing.T, f fixture) session.Decision {
	t.Helper()
	e, err := tc.engine(t, f)
	if (err != nil) != tc.WantErr {
		t.Fatalf("New() error = %v, want error %v", err, tc.WantErr)
	}
	if e == nil {
		t.Fatal("New() returned a nil Engine")
	}
	d := e.Decide(tc.Tool, f.expandInput(tc.Input))
	tc.check(t, f, d)
	return d
}

func (tc tcase) check(t *testing.T, f fixture, d session.Decision) {
	t.Helper()
	checkShape(t, tc.Tool, d)
	if tc.NotAllow && d.Decision == session.Allow {
		t.Errorf("Decide(%s %v) = allow (%s), want ask or deny", tc.Tool, tc.Input, d.Reason)
	}
	if tc.Want != "" && d.Decision != tc.Want {
		t.Errorf("Decide(%s %v) = %s, want %s (reason %q, rule %q, source %s)", tc.Tool, tc.Input, d.Decision, tc.Want, d.Reason, d.Rule, d.Source)
	}
	if tc.Source != "" && d.Source != tc.Source {
		t.Errorf("Decide(%s %v).Source = %q, want %q (reason %q)", tc.Tool, tc.Input, d.Source, tc.Source, d.Reason)
	}
	if tc.Rule != "" && d.Rule != f.expand(tc.Rule) {
		t.Errorf("Decide(%s %v).Rule = %q, want %q", tc.Tool, tc.Input, d.Rule, f.expand(tc.Rule))
	}
	if d.Once != tc.Once {
		t.Errorf("Decide(%s %v).Once = %v, want %v", tc.Tool, tc.Input, d.Once, tc.Once)
	}
	for _, s := range tc.ReasonHas {
		if !strings.Contains(d.Reason, f.expand(s)) {
			t.Errorf("Decide(%s %v).Reason = %q, want it to contain %q", tc.Tool, tc.Input, d.Reason, f.expand(s))
		}
	}
}

var sources = map[string]bool{
	session.SourceGuard: true, session.SourceDenyList: true, session.SourceSession: true,
	session.SourceAskList: true, session.SourceAllowList: true, session.SourceMode: true,
	session.SourcePreset: true, session.SourceConfig: true, session.SourceAutorun: true,
}

// checkShape asserts what every decision carries (SPEC §4).
func checkShape(t testing.TB, tool string, d session.Decision) {
	t.Helper()
	switch d.Decision {
	case session.Allow, session.Ask, session.Deny:
	default:
		t.Errorf("Decision = %q, want allow, ask or deny", d.Decision)
	}
	if !sources[d.Source] {
		t.Errorf("Source = %q, not a known source", d.Source)
	}
	checkSentence(t, d.Reason)
	switch tools.Level(d.Level) {
	case tools.ReadOnly, tools.Mutating, tools.Network:
	default:
		t.Errorf("Level = %q, want read_only, mutating or network", d.Level)
	}
	if canon, _ := tools.Canonical(tool); !strings.HasPrefix(d.Action, "tool:"+canon+":") {
		t.Errorf("Action = %q, want prefix %q", d.Action, "tool:"+canon+":")
	}
}

// checkSentence asserts a reason reads as a sentence: starts with a capital
// (or a tool name), ends with a period, one line.
func checkSentence(t testing.TB, r string) {
	t.Helper()
	if r == "" {
		t.Error("Reason is empty")
		return
	}
	if !strings.HasSuffix(r, ".") {
		t.Errorf("Reason %q does not end with a period", r)
	}
	if strings.ContainsAny(r, "\n\r") {
		t.Errorf("Reason %q spans several lines", r)
	}
	if first := []rune(r)[0]; unicode.IsLower(first) && !strings.HasPrefix(r, "mcp__") {
		t.Errorf("Reason %q does not start with a capital", r)
	}
}

// runCases runs a table of cases in parallel, one fixture each.
func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newFixture(t))
		})
	}
}

func bash(cmd string) map[string]any { return map[string]any{"command": cmd} }
func file(p string) map[string]any   { return map[string]any{"file_path": p} }
func url(u string) map[string]any    { return map[string]any{"url": u} }
func pattern(p string) map[string]any {
	return map[string]any{"pattern": p}
}

const (
	allowList = matcher.AllowList
	askList   = matcher.AskList
	denyList  = matcher.DenyList
)
