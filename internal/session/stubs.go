package session

import (
	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
)

// Engine decides tool calls for one chat. It is safe for concurrent use.
type Engine struct{}

// New compiles the chat's settings. When the settings hold an invalid rule or
// an unknown preset it returns a non-nil Engine that denies every call (with
// the error as its reason) together with the error.
func New(cfg *config.Config, s frontmatter.Settings, opts Options) (*Engine, error) {
	panic("TODO")
}

// Decide runs the pipeline for one tool call.
func (e *Engine) Decide(tool string, input map[string]any) Decision { panic("TODO") }

// DecideCall runs the pipeline for a prepared call.
func (e *Engine) DecideCall(c *matcher.Call) Decision { panic("TODO") }

// Prepare prepares a call in this engine's environment.
func (e *Engine) Prepare(tool string, input map[string]any) *matcher.Call { panic("TODO") }

// GrantSession records an allow_for_session (allow=true) or deny_for_session
// answer as a rule that lasts for this engine's life.
func (e *Engine) GrantSession(rule string, allow bool) error { panic("TODO") }

// GrantOnce allows tool for the rest of the session (the "once" policy).
func (e *Engine) GrantOnce(tool string) { panic("TODO") }

// AddRule adds a rule to the chat's allow or deny list in memory (an
// always_allow / always_deny answer applied at once).
func (e *Engine) AddRule(list matcher.List, rule string) error { panic("TODO") }

// Resumed reports whether the engine treats the chat as a resumed session.
func (e *Engine) Resumed() bool { panic("TODO") }

// Explanation is the effective permissions of a chat in plain words (the
// Daycare audit): for each tool, what runs, what asks, what is refused, why.
type Explanation struct {
	Mode      string       `json:"mode"`
	Preset    string       `json:"preset,omitempty"`
	Resumed   bool         `json:"resumed"`
	Cwd       string       `json:"cwd"`
	Tools     []ToolReport `json:"tools"`
	Defaults  []string     `json:"default_deny_rules"`
	Guarded   []string     `json:"guarded"`
	Effective []string     `json:"effective"` // one plain sentence per line
	Errors    []string     `json:"errors,omitempty"`
}

// ToolReport is one tool's line in an Explanation.
type ToolReport struct {
	Tool    string   `json:"tool"`
	Level   string   `json:"level"`
	Default string   `json:"default"` // what happens to a call no rule names: allow | ask | deny
	Allow   []string `json:"allow,omitempty"`
	Ask     []string `json:"ask,omitempty"`
	Deny    []string `json:"deny,omitempty"`
	Summary string   `json:"summary"`
}

// Explain reports the engine's effective permissions.
func (e *Engine) Explain() Explanation { panic("TODO") }

// Text renders the explanation in plain words.
func (x Explanation) Text() string { panic("TODO") }
