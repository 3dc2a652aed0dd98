package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"vibing/internal/config"
	"vibing/internal/session"
	"vibing/internal/tools"
)

// claudeFile is what vibing takes from one Claude Code settings file.
type claudeFile struct {
	rules    session.PolicyFile
	switches session.Switches
	warnings []string
}

type claudePermissions struct {
	Allow                        []string `json:"allow"`
	Ask                          []string `json:"ask"`
	Deny                         []string `json:"deny"`
	DefaultMode                  string   `json:"defaultMode"`
	AdditionalDirectories        []string `json:"additionalDirectories"`
	DisableBypassPermissionsMode string   `json:"disableBypassPermissionsMode"`
}

var knownPermissionKeys = map[string]bool{"allow": true, "ask": true, "deny": true, "defaultMode": true,
	"additionalDirectories": true, "disableBypassPermissionsMode": true}

// parseClaudeFile reads data, the Claude Code settings file (JSON) at path,
// with Claude's own meanings (SPEC §11). root is what a rule's "/x" is
// relative to: the project root for a project's files, ~/.claude for the
// user's, / for the managed ones. A file that is not valid JSON, or whose
// permissions have the wrong shape, is an error naming its line.
func parseClaudeFile(data []byte, path, layer, name, root, home string) (*claudeFile, error) {
	f := &claudeFile{rules: session.PolicyFile{Layer: layer, Name: name}}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(path, data, err)
	}
	if raw, ok := top["allowManagedPermissionRulesOnly"]; ok && layer == session.LayerManaged {
		if err := json.Unmarshal(raw, &f.switches.ManagedRulesOnly); err != nil {
			return nil, jsonError(path, data, err)
		}
	}
	raw, ok := top["permissions"]
	if !ok {
		return f, nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, fmt.Errorf("%w: %s: line %d: permissions must be an object", ErrMalformed, path, lineOf(data, bytes.Index(data, raw)))
	}
	var unknown []string
	for k := range keys {
		if !knownPermissionKeys[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		f.warnings = append(f.warnings, fmt.Sprintf("%s: permissions.%s is not a key vibing reads", name, k))
	}
	var p claudePermissions
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, jsonError(path, data, err)
	}
	if p.DisableBypassPermissionsMode == "disable" {
		f.switches.DisableBypass = true // restricting needs no trust: honoured from every layer
	}
	if m := p.DefaultMode; m != "" {
		switch {
		case !config.ValidMode(m):
			return nil, fmt.Errorf("%w: %s: permissions.defaultMode %q is not a mode vibing knows (%s)", ErrMalformed, path, m, strings.Join(config.Modes, ", "))
		case m == "bypassPermissions" && layer == session.LayerProject:
			f.warnings = append(f.warnings, fmt.Sprintf("%s: defaultMode bypassPermissions is ignored: a project file cannot set it (as in Claude Code)", name))
		default:
			f.rules.Mode, f.rules.Default = m, true
		}
	}
	tr := translator{root: root, home: home, name: name}
	f.rules.Deny = tr.rules(p.Deny, "deny")
	f.rules.Ask = tr.rules(p.Ask, "ask")
	f.rules.Allow = tr.rules(p.Allow, "allow")
	for _, d := range p.AdditionalDirectories {
		// Claude lets its read-only tools work there without asking.
		f.rules.Allow = append(f.rules.Allow, "Read("+globEscape(tr.abs(d))+"/**)")
	}
	f.warnings = append(f.warnings, tr.warnings...)
	return f, nil
}

// translator rewrites Claude Code rules into vibing's syntax.
type translator struct {
	root, home, name string
	warnings         []string
}

func (t *translator) rules(texts []string, list string) []string {
	out := make([]string, 0, len(texts))
	for _, text := range texts {
		r, keep := t.rule(text, list)
		if keep {
			out = append(out, r)
		}
	}
	return out
}

// rule translates one rule; keep is false for a rule Claude ignores in that
// list (a Write allow).
func (t *translator) rule(text, list string) (string, bool) {
	s := strings.TrimSpace(text)
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return s, true // a bare tool, a prefix, or invalid: the engine judges it
	}
	tool, arg := strings.TrimSpace(s[:open]), s[open+1:len(s)-1]
	info, known := tools.Lookup(tool)
	switch {
	case known && info.Name == "Write" && list == "allow":
		t.warnings = append(t.warnings, fmt.Sprintf("%s: the allow rule %s is dropped: Claude Code ignores Write rules (use Edit(...), which covers every write)", t.name, s))
		return "", false
	case known && info.Arg == tools.ArgCommand:
		if strings.HasSuffix(arg, " *") && !strings.Contains(strings.TrimSuffix(arg, " *"), "*") {
			arg = strings.TrimSuffix(arg, " *") + ":*" // Bash(x *) means Bash(x:*)
		}
	case known && info.Arg == tools.ArgPath:
		arg = t.path(arg)
	}
	return tool + "(" + arg + ")", true
}

// path gives a Claude path pattern vibing's meaning: "//x" is absolute, "/x"
// relative to the settings root, "~/x" home, "./x" and "x/y" relative to the
// working directory, and a bare name (no "/") matches at any depth.
func (t *translator) path(p string) string {
	switch {
	case strings.HasPrefix(p, "//"):
		return p[1:]
	case strings.HasPrefix(p, "/"):
		return globEscape(t.root) + p
	case strings.HasPrefix(p, "~/"), p == "~":
		return p
	case strings.HasPrefix(p, "./"):
		return strings.TrimPrefix(p, "./")
	case !strings.Contains(p, "/"):
		return "**/" + p
	}
	return p
}

// abs makes a Claude directory name absolute (additionalDirectories).
func (t *translator) abs(d string) string {
	switch {
	case strings.HasPrefix(d, "~/"):
		return filepath.Join(t.home, d[2:])
	case filepath.IsAbs(d):
		return filepath.Clean(d)
	}
	return filepath.Join(t.root, d)
}

// globEscape quotes the glob characters of a literal path.
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// jsonError names the file and line of a JSON error.
func jsonError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%w: %s: line %d: %v", ErrMalformed, path, lineOf(data, int(syn.Offset)), err)
	case errors.As(err, &typ):
		return fmt.Errorf("%w: %s: line %d: %s must be %s, not %s", ErrMalformed, path, lineOf(data, int(typ.Offset)), typ.Field, typ.Type, typ.Value)
	}
	return fmt.Errorf("%w: %s: %v", ErrMalformed, path, err)
}

func lineOf(data []byte, off int) int {
	if off < 0 || off > len(data) {
		return 1
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
