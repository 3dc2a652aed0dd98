package matcher

// Rule is one compiled permission rule.
type Rule struct {
	Text string // canonical text, e.g. "Bash(npm:*)", "Read(src/**/*.ts)", "/tool:Bash:git .*/"
	Tool string // canonical tool name (or MCP name / prefix); empty for regex rules
	Arg  string // the argument inside the parentheses, as written; "" for bare rules
	// unexported compiled state
}

// ParseRule parses and compiles one rule. Errors are *RuleError.
func ParseRule(text string) (*Rule, error) { panic("TODO") }

// HasArg reports whether the rule has an argument (is narrower than the whole tool).
func (r *Rule) HasArg() bool { return r.Arg != "" }

// IsRegex reports whether the rule is a /regex/ action-string rule.
func (r *Rule) IsRegex() bool { panic("TODO") }

// Match reports whether the rule matches the call when it stands in list.
// Allow rules must cover (every simple command, both the path and its symlink
// target); deny and ask rules fire on any part and match when the call or the
// rule cannot be evaluated.
func (r *Rule) Match(c *Call, list List) bool { panic("TODO") }

// Prepare parses and resolves one tool call for matching.
func Prepare(tool string, input map[string]any, env Env) *Call { panic("TODO") }

// ResolvePath resolves p against env as a tool path is resolved.
func ResolvePath(p string, env Env) Path { panic("TODO") }

// InsideCwd reports whether the call's path (if any) lies inside the working
// directory, both as written and after resolving symlinks. A call without a
// path is inside.
func (c *Call) InsideCwd() bool { panic("TODO") }

// DefaultDeny reports whether the call matches one of the built-in destructive
// command rules, and returns that rule's name ("rm -rf on /", "sudo", ...).
func DefaultDeny(c *Call) (name string, ok bool) { panic("TODO") }

// Suggest returns the narrowest useful rule for "always" answers to this call,
// e.g. "Bash(npm install:*)", "Edit(src/a.go)", "WebFetch(github.com)"; never a
// bare "Bash" for a Bash call.
func Suggest(c *Call) string { panic("TODO") }
