package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/safefile"
)

// Found is one vibing entry in one settings file.
type Found struct {
	Scope string
	Path  string
	Event string
	Entry Entry
}

// Report is what `vibing-agent hook status` found.
type Report struct {
	Entries  []Found  // vibing entries, every scope
	Problems []string // what keeps the hook from deciding, one sentence each
	Notes    []string // what works, one sentence each
}

// OK reports whether an entry is installed and nothing switches it off.
func (r Report) OK() bool { return len(r.Entries) > 0 && len(r.Problems) == 0 }

// Runner runs a hook command with stdin and returns its stdout; it sets
// SelfTestEnv=1 in the command's environment.
type Runner func(command string, args []string, stdin []byte) ([]byte, error)

// selfTests are the inputs status feeds the installed command: a line every
// vibing engine denies (default rule), and a prompt without mentions. The
// Runner sets SelfTestEnv, so that the deny is no audit row.
func selfTests(cwd string) []struct {
	name, want string
	input      map[string]any
} {
	return []struct {
		name, want string
		input      map[string]any
	}{
		{"PreToolUse of Bash (rm -rf /)", "deny", map[string]any{"session_id": SelfTestSession, "cwd": cwd, "hook_event_name": EventPreToolUse,
			"permission_mode": "default", "tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf /"}, "tool_use_id": "status"}},
		{"UserPromptSubmit without mentions", "{}", map[string]any{"session_id": SelfTestSession, "cwd": cwd, "hook_event_name": EventUserPromptSubmit,
			"permission_mode": "default", "prompt": "hello"}},
	}
}

// Status finds every vibing entry, names what would switch it off, and
// runs each distinct installed command on sample inputs. self is the
// running binary, to tell a stale path.
func Status(p Paths, self string, run Runner) Report {
	var r Report
	files := map[string]*Settings{}
	read := func(scope, path string) *Settings {
		s, err := ReadSettings(path)
		if err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("%s settings: %v.", scope, err))
			return nil
		}
		files[path] = s
		return s
	}
	var managed []*Settings
	mfiles, err := managedFiles(p.managed())
	if err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("%s settings: %v; a managed setting there may switch the hook off.", ScopeManaged, err))
	}
	for _, f := range mfiles {
		if s := read(ScopeManaged, f); s != nil {
			managed = append(managed, s)
			r.collect(ScopeManaged, s)
		}
	}
	managedOnly := false
	for _, s := range managed {
		if s.Bool("disableAllHooks") {
			r.Problems = append(r.Problems, fmt.Sprintf("%s sets disableAllHooks: Claude Code runs no hooks at all.", s.Path))
		}
		if s.Bool("allowManagedHooksOnly") {
			managedOnly = true
		}
	}
	for _, scope := range []string{ScopeUser, ScopeProject, ScopeLocal} {
		path, _ := p.File(scope)
		s := read(scope, path)
		if s == nil || !s.exists {
			continue
		}
		r.collect(scope, s)
		if s.Bool("disableAllHooks") {
			r.Problems = append(r.Problems, fmt.Sprintf("%s sets disableAllHooks: Claude Code runs no user, project or local hooks (only managed ones).", path))
		}
	}
	if managedOnly {
		for _, f := range r.Entries {
			if f.Scope != ScopeManaged {
				r.Problems = append(r.Problems, fmt.Sprintf("managed settings set allowManagedHooksOnly: the %s entry in %s is ignored; install it with --scope managed --print.", f.Scope, f.Path))
				break
			}
		}
	}
	if len(r.Entries) == 0 {
		r.Problems = append(r.Problems, "no vibing-agent hook entry is installed (run: vibing-agent hook install).")
		return r
	}
	r.checkEntries(self, run, p.Project)
	return r
}

// managedFiles are Claude Code's managed settings files in dir; the error
// says the drop-in folder exists but cannot be listed (the files found are
// still returned).
func managedFiles(dir string) ([]string, error) {
	out := []string{filepath.Join(dir, "managed-settings.json")}
	d := filepath.Join(dir, "managed-settings.d")
	names, err := safefile.ReadDirNames(d)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("the folder %s cannot be read (%w)", d, err)
	}
	for _, n := range names {
		if ok, _ := filepath.Match("*.json", n); ok {
			out = append(out, filepath.Join(d, n))
		}
	}
	return out, nil
}

func (r *Report) collect(scope string, s *Settings) {
	for _, ev := range Events {
		for _, e := range s.Ours(ev) {
			r.Entries = append(r.Entries, Found{Scope: scope, Path: s.Path, Event: ev, Entry: e})
		}
	}
}

// checkEntries checks each entry's shape and binary, and self-tests each
// distinct command line once.
func (r *Report) checkEntries(self string, run Runner, cwd string) {
	events := map[string]bool{}
	tested := map[string]bool{}
	for _, f := range r.Entries {
		events[f.Event] = true
		e := f.Entry
		where := fmt.Sprintf("the %s %s entry in %s", f.Scope, f.Event, f.Path)
		if e.OnFailure != "block" {
			r.Problems = append(r.Problems, where+` has no "onFailure":"block": a crashed or missing binary would let every call through.`)
		}
		if e.Timeout <= 0 {
			r.Problems = append(r.Problems, where+" has no timeout: a stuck hook would hold a call for 600 s.")
		}
		fi, err := os.Stat(e.Command)
		switch {
		case err != nil:
			r.Problems = append(r.Problems, fmt.Sprintf("%s runs %s, which does not exist (stale path): every call would be blocked. Run vibing-agent hook install again.", where, e.Command))
			continue
		case fi.IsDir() || fi.Mode()&0o111 == 0:
			r.Problems = append(r.Problems, fmt.Sprintf("%s runs %s, which is not an executable file.", where, e.Command))
			continue
		case self != "" && !samePath(e.Command, self):
			r.Notes = append(r.Notes, fmt.Sprintf("%s runs %s, not this binary (%s).", where, e.Command, self))
		}
		key := e.Command + "\x00" + strings.Join(e.Args, "\x00")
		if tested[key] || run == nil {
			continue
		}
		tested[key] = true
		r.selfTest(where, e, run, cwd)
	}
	for _, ev := range Events {
		if !events[ev] {
			r.Problems = append(r.Problems, fmt.Sprintf("no entry for %s is installed (run: vibing-agent hook install).", ev))
		}
	}
}

func (r *Report) selfTest(where string, e Entry, run Runner, cwd string) {
	for _, t := range selfTests(cwd) {
		in, _ := json.Marshal(t.input)
		out, err := run(e.Command, e.Args, in)
		if err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("self-test of %s failed: %s: %v.", where, t.name, err))
			return
		}
		got := strings.TrimSpace(string(out))
		if t.want == "{}" {
			if got != "{}" {
				r.Problems = append(r.Problems, fmt.Sprintf("self-test of %s: %s answered %s, want {}.", where, t.name, got))
				return
			}
			continue
		}
		var o struct {
			H preToolUseOutput `json:"hookSpecificOutput"`
		}
		if json.Unmarshal(out, &o) != nil || o.H.HookEventName != EventPreToolUse || o.H.PermissionDecision != t.want {
			r.Problems = append(r.Problems, fmt.Sprintf("self-test of %s: %s answered %s, want a %s decision.", where, t.name, got, t.want))
			return
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("self-test of %s passed (it denies rm -rf / and lets a plain prompt through).", where))
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// NoSandbox says what a plain claude session with only the hook lacks.
const NoSandbox = "The hook decides every tool call, but a plain `claude` session runs without vibing's sandbox: " +
	"a script the agent runs there can read and write what you can and reach any host. " +
	"Start the CLI with `vibing-agent claude` for the kernel's backstop (hidden files, read-only guarded files, the network through the rules)."

// Text renders the report for a person.
func (r Report) Text() string {
	var b strings.Builder
	if len(r.Entries) > 0 {
		b.WriteString("Installed:\n")
		for _, f := range r.Entries {
			fmt.Fprintf(&b, "  %-8s %-17s %s %s  (in %s)\n", f.Scope, f.Event, f.Entry.Command, strings.Join(f.Entry.Args, " "), f.Path)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "ok: %s\n", n)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	if r.OK() {
		b.WriteString("The vibing hook is installed and working.\n")
		b.WriteString(NoSandbox + "\n")
	} else {
		b.WriteString("The vibing hook is NOT protecting Claude Code sessions here.\n")
	}
	return b.String()
}

// Installed lists the vibing entries of every scope's settings file
// (managed, user, project, local), skipping files that cannot be read.
func Installed(p Paths) []Found {
	var r Report
	files, _ := managedFiles(p.managed())
	scopes := make([]string, len(files))
	for i := range files {
		scopes[i] = ScopeManaged
	}
	for _, scope := range []string{ScopeUser, ScopeProject, ScopeLocal} {
		path, _ := p.File(scope)
		files, scopes = append(files, path), append(scopes, scope)
	}
	for i, f := range files {
		if s, err := ReadSettings(f); err == nil && s.exists {
			r.collect(scopes[i], s)
		}
	}
	return r.Entries
}

// Files are the files an entry's command reads its rules from: the values
// of its --config and --chat arguments.
func (e Entry) Files() []string {
	var out []string
	for i := 0; i < len(e.Args); i++ {
		a := e.Args[i]
		for _, flag := range []string{"--config", "--chat", "-config", "-chat"} {
			switch {
			case a == flag && i+1 < len(e.Args):
				out = append(out, e.Args[i+1])
				i++
			case strings.HasPrefix(a, flag+"="):
				out = append(out, strings.TrimPrefix(a, flag+"="))
			}
		}
	}
	return out
}
