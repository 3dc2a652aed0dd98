package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/atomicfile"
	"vibing/internal/safefile"
)

// Scopes of a Claude Code settings file.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
	ScopeLocal   = "local"
	ScopeManaged = "managed"
)

// DefaultTimeoutS is the hook entry's timeout: the CLI's default is 600 s,
// far too long for a call that takes milliseconds.
const DefaultTimeoutS = 10

// Events are the hook events the entry is installed for.
var Events = []string{EventPreToolUse, EventUserPromptSubmit}

// Paths say where the settings files are.
type Paths struct {
	Home    string // the user's home (~/.claude/settings.json)
	Project string // the project folder (.claude/settings.json, .claude/settings.local.json)
	Managed string // Claude Code's managed folder; default /etc/claude-code
}

// ManagedDir is where Claude Code reads managed settings.
const ManagedDir = "/etc/claude-code"

func (p Paths) managed() string {
	if p.Managed != "" {
		return p.Managed
	}
	return ManagedDir
}

// File is the settings file of a scope.
func (p Paths) File(scope string) (string, error) {
	switch scope {
	case ScopeUser:
		return filepath.Join(p.Home, ".claude", "settings.json"), nil
	case ScopeProject:
		return filepath.Join(p.Project, ".claude", "settings.json"), nil
	case ScopeLocal:
		return filepath.Join(p.Project, ".claude", "settings.local.json"), nil
	case ScopeManaged:
		return filepath.Join(p.managed(), "managed-settings.d", "vibing.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q (use user, project, local or managed)", scope)
}

// Entry is the hook command: exec form (no shell), with a timeout, and
// blocking the call when the hook fails in any way.
type Entry struct {
	Type      string   `json:"type"`
	Command   string   `json:"command"`
	Args      []string `json:"args"`
	Timeout   int      `json:"timeout"`
	OnFailure string   `json:"onFailure"`
}

// NewEntry is the entry that runs bin (an absolute path) as
// `bin hook EXTRA...`.
func NewEntry(bin string, extra ...string) Entry {
	return Entry{Type: "command", Command: bin, Args: append([]string{"hook"}, extra...), Timeout: DefaultTimeoutS, OnFailure: "block"}
}

// group is the matcher group an entry sits in for event.
func group(event string, e Entry) json.RawMessage {
	g := object{}
	if event == EventPreToolUse {
		g.set("matcher", mustRaw("*"))
	}
	g.set("hooks", mustRaw([]Entry{e}))
	return mustRaw(g)
}

// ManagedJSON is a managed-settings.d file holding only the entry.
func ManagedJSON(e Entry) []byte {
	hooks := object{}
	for _, ev := range Events {
		hooks.set(ev, mustRaw([]json.RawMessage{group(ev, e)}))
	}
	return indent(mustRaw(object{{"hooks", mustRaw(hooks)}}))
}

// isOurs reports whether a hook entry runs `vibing-agent hook`, in exec or
// shell form, from any path.
func isOurs(raw json.RawMessage) bool {
	var h struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	words := strings.Fields(h.Command)
	if len(words) == 0 || !strings.HasPrefix(filepath.Base(strings.Trim(words[0], `"'`)), "vibing-agent") {
		return false
	}
	if len(h.Args) > 0 {
		return h.Args[0] == "hook"
	}
	return len(words) > 1 && words[1] == "hook"
}

// ErrInvalidSettings is wrapped when a settings file is not what Claude
// Code reads; such a file is never written.
var ErrInvalidSettings = errors.New("invalid settings file")

// Settings is one settings file read for editing.
type Settings struct {
	Path   string
	exists bool
	mode   fs.FileMode
	orig   []byte
	top    object
}

// ReadSettings reads a settings file; a missing or empty file is an empty
// object. A file that is not one JSON object is an error naming the file
// and line, as is one that is not a regular file (it is never opened in a
// way that blocks) or is larger than safefile.PolicyLimit.
func ReadSettings(path string) (*Settings, error) {
	s := &Settings{Path: path, mode: 0o644, top: object{}}
	data, err := safefile.ReadFile(path, safefile.PolicyLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, err
	}
	s.exists, s.orig = true, data
	if fi, err := os.Stat(path); err == nil {
		s.mode = fi.Mode().Perm()
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	var any0 any
	err = json.Unmarshal(data, &any0) // for the offset of a syntax error
	top, perr := parseObject(data)
	if err == nil {
		err = perr
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not valid JSON at %s (%v); fix it by hand, it was left as it is", ErrInvalidSettings, path, syntaxLine(data, err), err)
	}
	s.top = top
	return s, nil
}

// hooks returns the "hooks" object and, per event, its matcher groups.
func (s *Settings) hooks() (object, error) {
	raw, ok := s.top.get("hooks")
	if !ok || string(raw) == "null" {
		return object{}, nil
	}
	h, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: \"hooks\" must be an object", ErrInvalidSettings, s.Path)
	}
	return h, nil
}

func (s *Settings) groups(h object, event string) ([]json.RawMessage, error) {
	raw, ok := h.get(event)
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var gs []json.RawMessage
	if err := json.Unmarshal(raw, &gs); err != nil {
		return nil, fmt.Errorf("%w: %s: \"hooks.%s\" must be an array", ErrInvalidSettings, s.Path, event)
	}
	return gs, nil
}

// Ours lists the entries of event that run `vibing-agent hook`.
func (s *Settings) Ours(event string) []Entry {
	h, err := s.hooks()
	if err != nil {
		return nil
	}
	gs, _ := s.groups(h, event)
	var out []Entry
	for _, g := range gs {
		var grp struct {
			Hooks []json.RawMessage `json:"hooks"`
		}
		if json.Unmarshal(g, &grp) != nil {
			continue
		}
		for _, e := range grp.Hooks {
			if isOurs(e) {
				var en Entry
				_ = json.Unmarshal(e, &en)
				out = append(out, en)
			}
		}
	}
	return out
}

// Bool reads a top-level boolean setting (false when absent).
func (s *Settings) Bool(key string) bool {
	raw, ok := s.top.get(key)
	var b bool
	return ok && json.Unmarshal(raw, &b) == nil && b
}

// setEntry puts e in place of our entries (at the first one's place), or
// appends a group holding it; e nil removes ours. Groups and events left
// empty by the removal are dropped.
func (s *Settings) setEntry(e *Entry) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	for _, ev := range Events {
		gs, err := s.groups(h, ev)
		if err != nil {
			return err
		}
		var out []json.RawMessage
		placed, removed := false, false
		for _, g := range gs {
			grp, err := parseObject(g)
			if err != nil {
				out = append(out, g) // not ours to judge: kept as it is
				continue
			}
			raw, _ := grp.get("hooks")
			var hs []json.RawMessage
			if json.Unmarshal(raw, &hs) != nil {
				out = append(out, g)
				continue
			}
			var kept []json.RawMessage
			for _, x := range hs {
				switch {
				case !isOurs(x):
					kept = append(kept, x)
				case e != nil && !placed && (ev != EventPreToolUse || matchesAll(grp)):
					kept = append(kept, mustRaw(e))
					placed = true
				default:
					removed = true
				}
			}
			if len(kept) == 0 && removed {
				continue
			}
			if len(kept) != len(hs) || removed {
				grp.set("hooks", mustRaw(kept))
				g = mustRaw(grp)
			} else if placed {
				grp.set("hooks", mustRaw(kept))
				g = mustRaw(grp)
			}
			out = append(out, g)
		}
		if e != nil && !placed {
			out = append(out, group(ev, *e))
		}
		switch {
		case len(out) > 0:
			h.set(ev, mustRaw(out))
		case len(gs) > 0 || removed:
			h.del(ev)
		}
	}
	if len(h) == 0 {
		if _, had := s.top.get("hooks"); had {
			s.top.del("hooks")
		}
		return nil
	}
	s.top.set("hooks", mustRaw(h))
	return nil
}

// matchesAll reports whether a PreToolUse group's matcher covers every tool.
func matchesAll(grp object) bool {
	raw, ok := grp.get("matcher")
	if !ok {
		return true
	}
	var m string
	_ = json.Unmarshal(raw, &m)
	return m == "" || m == "*"
}

// content is the file as it would be written.
func (s *Settings) content() []byte { return indent(mustRaw(s.top)) }

func indent(raw []byte) []byte {
	var b bytes.Buffer
	_ = json.Indent(&b, raw, "", "  ")
	b.WriteByte('\n')
	return b.Bytes()
}

// Result says what an install or uninstall did.
type Result struct {
	Path    string
	Changed bool   // the file was written
	Backup  string // the copy of the file as it was ("" when there was none)
}

// Install adds the entry to the settings file at path (or brings an
// existing vibing entry up to date), keeping every other key and hook.
func Install(path string, e Entry) (Result, error) {
	return edit(path, &e)
}

// Uninstall removes every vibing entry from the settings file at path.
func Uninstall(path string) (Result, error) {
	return edit(path, nil)
}

func edit(path string, e *Entry) (Result, error) {
	res := Result{Path: path}
	s, err := ReadSettings(path)
	if err != nil {
		return res, err
	}
	if err := s.setEntry(e); err != nil {
		return res, err
	}
	out := s.content()
	if !s.exists && e == nil {
		return res, nil
	}
	if s.exists && sameJSON(s.orig, out) {
		return res, nil
	}
	if s.exists {
		res.Backup = path + ".vibing-backup"
		if err := writeAtomic(res.Backup, s.orig, s.mode); err != nil {
			return res, fmt.Errorf("cannot keep a backup of %s, so it was not changed: %w", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return res, err
	}
	if err := writeAtomic(path, out, s.mode); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}

// sameJSON reports whether two documents hold the same values in the same
// order (whitespace aside).
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// writeAtomic is atomicfile.Write, its error naming the file.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if err := atomicfile.Write(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
