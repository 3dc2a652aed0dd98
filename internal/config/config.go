package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"vibing/internal/safefile"
)

// Resume-ask settings.
const (
	ResumeAskDeny   = "deny"
	ResumeAskPrompt = "prompt"
)

// ResumeAskValues lists the resume_ask settings.
var ResumeAskValues = []string{ResumeAskDeny, ResumeAskPrompt}

// Approval policies.
const (
	PolicyTrust  = "trust"
	PolicyOnce   = "once"
	PolicyAlways = "always"
)

// PolicyValues lists the approval policies a tool can have.
var PolicyValues = []string{PolicyTrust, PolicyOnce, PolicyAlways}

// Modes lists the permission modes.
var Modes = []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"}

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid config")

// Preset is a named bundle of rules and a mode.
type Preset struct {
	Mode  string   `yaml:"mode" json:"mode,omitempty"`
	Allow []string `yaml:"allow" json:"allow,omitempty"`
	Ask   []string `yaml:"ask" json:"ask,omitempty"`
	Deny  []string `yaml:"deny" json:"deny,omitempty"`
}

// Template is the permission template for new chats.
type Template struct {
	Mode   string   `yaml:"mode" json:"mode"`
	Allow  []string `yaml:"allow" json:"allow"`
	Ask    []string `yaml:"ask" json:"ask"`
	Deny   []string `yaml:"deny" json:"deny"`
	Preset string   `yaml:"preset" json:"preset,omitempty"`
}

// Config is the Go side's view of the user's options. Unknown keys are
// ignored here (the editor checks setup() options itself and may pass
// editor-only keys along).
type Config struct {
	ApprovalTimeoutS int               `yaml:"approval_timeout_s" json:"approval_timeout_s"`
	IdleTimeoutS     int               `yaml:"idle_timeout_s" json:"idle_timeout_s"` // 0: no limit
	ResumeAsk        string            `yaml:"resume_ask" json:"resume_ask"`
	DefaultDenyRules *bool             `yaml:"default_deny_rules" json:"default_deny_rules"`
	Policies         map[string]string `yaml:"policies" json:"policies"`
	Presets          map[string]Preset `yaml:"presets" json:"presets"`
	AuditPath        string            `yaml:"audit_path" json:"audit_path"`
	ClaudeCmd        string            `yaml:"claude_cmd" json:"claude_cmd"`
	Permissions      Template          `yaml:"permissions" json:"permissions"`
	// ClaudeSettings reads Claude Code's own settings files as policy
	// layers (SPEC §11); default true.
	ClaudeSettings *bool `yaml:"claude_settings" json:"claude_settings"`
	// Sandbox says whether run and `vibing-agent claude` start the CLI
	// inside bubblewrap (SPEC §14): auto (default), on or off.
	Sandbox string `yaml:"sandbox" json:"sandbox"`
	// SandboxWritable are more folders the sandbox leaves writable (a
	// tool's cache outside the project); ~ is the home folder.
	SandboxWritable []string `yaml:"sandbox_writable" json:"sandbox_writable"`
	// SandboxEnvAllow are more environment variables (shell patterns such
	// as MY_API_KEY or AWS_*) that reach the sandbox although they look
	// like credentials; the variables naming the session's sockets never do.
	SandboxEnvAllow []string `yaml:"sandbox_env_allow" json:"sandbox_env_allow"`
	// SandboxHosts are more hosts (example.com, *.example.com) the
	// sandbox's network proxy lets through besides the API and the hosts
	// allow rules name.
	SandboxHosts []string `yaml:"sandbox_hosts" json:"sandbox_hosts"`
}

// Sandbox settings.
const (
	SandboxAuto = "auto"
	SandboxOn   = "on"
	SandboxOff  = "off"
)

// SandboxValues lists the sandbox settings.
var SandboxValues = []string{SandboxAuto, SandboxOn, SandboxOff}

// ReadClaudeSettings reports whether Claude Code's settings files are policy
// layers.
func (c *Config) ReadClaudeSettings() bool { return c.ClaudeSettings == nil || *c.ClaudeSettings }

// BuiltinPresets are the presets every user has.
func BuiltinPresets() map[string]Preset {
	return map[string]Preset{
		"open": {Mode: "bypassPermissions"},
		"standard": {
			Mode: "default",
			Allow: []string{"Read(**)", "Edit(**)",
				"Bash(git status:*)", "Bash(git diff:*)", "Bash(git log:*)", "Bash(git add:*)", "Bash(git commit:*)"},
			Ask: []string{"Bash", "Bash(git push:*)", "WebFetch"},
		},
		"locked": {Mode: "dontAsk", Allow: []string{"Read(**)"}},
	}
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() *Config {
	on := true
	return &Config{
		ApprovalTimeoutS: 60,
		IdleTimeoutS:     900,
		ResumeAsk:        ResumeAskDeny,
		DefaultDenyRules: &on,
		Sandbox:          SandboxAuto,
		Policies:         map[string]string{},
		Presets:          map[string]Preset{},
		Permissions: Template{
			Mode:  "default",
			Allow: []string{"Read(**)"},
			Ask:   []string{},
			Deny:  []string{},
		},
	}
}

// Deny reports whether the built-in destructive-command rules are on.
func (c *Config) DefaultDeny() bool { return c.DefaultDenyRules == nil || *c.DefaultDenyRules }

// Preset returns a preset by name: the user's own first, then the built-ins.
func (c *Config) Preset(name string) (Preset, bool) {
	if p, ok := c.Presets[name]; ok {
		return p, true
	}
	p, ok := BuiltinPresets()[name]
	return p, ok
}

// PresetNames lists every preset name, sorted.
func (c *Config) PresetNames() []string {
	seen := map[string]bool{}
	for n := range BuiltinPresets() {
		seen[n] = true
	}
	for n := range c.Presets {
		seen[n] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Parse reads a YAML or JSON config (JSON is YAML) on top of the defaults.
func Parse(r io.Reader) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	c := DefaultConfig()
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	if err := yaml.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if c.Policies == nil {
		c.Policies = map[string]string{}
	}
	if c.Presets == nil {
		c.Presets = map[string]Preset{}
	}
	if c.Permissions.Mode == "" {
		c.Permissions.Mode = "default"
	}
	if c.Sandbox == "" {
		c.Sandbox = SandboxAuto
	}
	return c, c.Validate()
}

// Load reads the config file at path; an empty path gives the defaults.
func Load(path string) (*Config, error) {
	if path == "" {
		return DefaultConfig(), nil
	}
	// the editor writes it, but a path can name a FIFO or a device
	data, err := safefile.ReadFile(path, safefile.PolicyLimit)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// ValidMode reports whether m is a permission mode.
func ValidMode(m string) bool {
	return slices.Contains(Modes, m)
}

// Validate checks values that the Go side relies on. Rule texts are checked
// by the session package when it compiles them.
func (c *Config) Validate() error {
	var errs []string
	if c.ApprovalTimeoutS <= 0 {
		errs = append(errs, fmt.Sprintf("approval_timeout_s must be a positive number of seconds, got %d", c.ApprovalTimeoutS))
	}
	if c.IdleTimeoutS < 0 {
		errs = append(errs, fmt.Sprintf("idle_timeout_s must be a number of seconds (0: no limit), got %d", c.IdleTimeoutS))
	}
	if !slices.Contains(ResumeAskValues, c.ResumeAsk) {
		errs = append(errs, fmt.Sprintf("resume_ask must be %q or %q, got %q", ResumeAskDeny, ResumeAskPrompt, c.ResumeAsk))
	}
	for tool, p := range c.Policies {
		if !slices.Contains(PolicyValues, p) {
			errs = append(errs, fmt.Sprintf("policies.%s must be trust, once or always, got %q", tool, p))
		}
	}
	for name, p := range c.Presets {
		if p.Mode != "" && !ValidMode(p.Mode) {
			errs = append(errs, fmt.Sprintf("presets.%s.mode must be one of %s, got %q", name, strings.Join(Modes, ", "), p.Mode))
		}
	}
	if c.Sandbox != "" && !slices.Contains(SandboxValues, c.Sandbox) {
		errs = append(errs, fmt.Sprintf("sandbox must be %q, %q or %q, got %q", SandboxAuto, SandboxOn, SandboxOff, c.Sandbox))
	}
	for _, pat := range c.SandboxEnvAllow {
		if _, err := path.Match(pat, ""); err != nil || pat == "" {
			errs = append(errs, fmt.Sprintf("sandbox_env_allow: %q is not a name or a pattern such as AWS_*", pat))
		}
	}
	for _, h := range c.SandboxHosts {
		if h == "" || strings.ContainsAny(h, "/:@? \t") || strings.Contains(strings.TrimPrefix(h, "*."), "*") {
			errs = append(errs, fmt.Sprintf("sandbox_hosts: %q is not a host name such as example.com or *.example.com", h))
		}
	}
	if !ValidMode(c.Permissions.Mode) {
		errs = append(errs, fmt.Sprintf("permissions.mode must be one of %s, got %q", strings.Join(Modes, ", "), c.Permissions.Mode))
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return nil
}

// StateDir is where vibing keeps its state ($XDG_STATE_HOME/vibing).
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "vibing")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "state", "vibing")
}

// AuditDB returns the audit database path.
func (c *Config) AuditDB() string {
	if c.AuditPath != "" {
		return c.AuditPath
	}
	return filepath.Join(StateDir(), "audit.sqlite")
}
