package session_test

import (
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/session"
	"vibing/internal/tools"
)

var fuzzModes = []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"}

// FuzzDecide checks the pipeline's invariants on arbitrary calls and rules:
// nothing panics; a deny-listed bare tool is always denied; a call is never
// allowed when a deny rule in the list matches it.
func FuzzDecide(f *testing.F) {
	seeds := []struct {
		tool, arg, deny, allow string
		mode                   uint8
	}{
		{"Bash", "rm -rf build", "Bash(rm:*)", "Bash", 4},
		{"Bash", "ls && rm a", "Bash(rm:*)", "Bash(ls:*)", 0},
		{"Bash", "echo $(sudo id)", "Bash(sudo:*)", "Bash(echo:*)", 1},
		{"Bash", "sh -c 'git push -f origin main'", "Bash(git push:*)", "Bash(sh:*)", 4},
		{"Bash", "echo x > .vibing/chat/chat.md", "Write(.vibing/**)", "Bash", 4},
		{"Bash", "cd secrets && cat > key", "Write(secrets/**)", "Bash(cd:*)", 0},
		{"Bash", "'unterminated", "Bash(x:*)", "Bash(x:*)", 4},
		{"Edit", "src/../secrets/k", "Read(secrets/**)", "Edit(**)", 1},
		{"Write", "~/.ssh/config", "Write(~/.ssh/**)", "Write", 4},
		{"Read", "/etc/passwd", "Read(/etc/**)", "Read", 2},
		{"WebFetch", "https://user@EVIL.com.:443/x", "WebFetch(evil.com)", "WebFetch", 4},
		{"WebFetch", "evil.com/x", "WebFetch(*.evil.com)", "WebFetch(github.com)", 0},
		{"Glob", "**/*", "Glob(**/*)", "Glob", 3},
		{"mcp__github__delete_repo", "{}", "mcp__github", "mcp__github__*", 4},
		{"Task", "general", "Agent", "Task", 4},
		{"Bash", "git push origin dev", "/tool:Bash:git push origin (?!main).*/", "Bash", 4},
		{"Bash", "ls", "Bash(", "Bash(ls)", 4},
	}
	for _, s := range seeds {
		f.Add(s.tool, s.arg, s.deny, s.allow, s.mode)
	}
	dir := newFixture(f)
	f.Fuzz(func(t *testing.T, tool, arg, deny, allow string, mode uint8) {
		if tool == "" {
			return
		}
		opts := tcase{}.options(dir)
		settings := frontmatter.Settings{
			Mode:  fuzzModes[int(mode)%len(fuzzModes)],
			Allow: []string{allow},
			Deny:  []string{deny},
		}
		e, _ := session.New(nil, settings, opts)
		in := inputFor(tool, arg)
		d := e.Decide(tool, in)
		if d.Decision != session.Allow && d.Decision != session.Ask && d.Decision != session.Deny {
			t.Fatalf("Decide(%q, %q) = %q", tool, arg, d.Decision)
		}
		if d.Reason == "" {
			t.Fatalf("Decide(%q, %q) has no reason", tool, arg)
		}
		if r, err := matcher.ParseRule(deny); err == nil && d.Decision == session.Allow {
			if r.Match(e.Prepare(tool, in), matcher.DenyList) {
				t.Fatalf("Decide(%q, %q) = allow (%s), but the deny rule %q matches it", tool, arg, d.Reason, deny)
			}
		}

		// a bare deny of the tool always denies, whatever else is allowed
		canon, _ := tools.Canonical(tool)
		if r, err := matcher.ParseRule(canon); err != nil || r.IsRegex() {
			return // "/x/" is a regex rule, not a tool name
		}
		settings.Deny = []string{canon}
		settings.Allow = []string{canon, allow}
		e, _ = session.New(nil, settings, opts)
		if err := e.GrantSession(canon, true); err != nil {
			t.Fatalf("GrantSession(%q): %v", canon, err)
		}
		if d := e.Decide(tool, in); d.Decision != session.Deny {
			t.Fatalf("Decide(%q, %q) with deny [%s] = %s (%s), want deny", tool, arg, canon, d.Decision, d.Reason)
		}
	})
}

// inputFor builds the input a tool takes from one string.
func inputFor(tool, v string) map[string]any {
	canon, _ := tools.Canonical(tool)
	switch canon {
	case "Bash":
		return map[string]any{"command": v}
	case "WebFetch":
		return map[string]any{"url": v}
	case "WebSearch":
		return map[string]any{"query": v}
	case "Task", "Agent":
		return map[string]any{"subagent_type": v}
	case "Glob", "Grep":
		return map[string]any{"pattern": v, "path": v}
	case "NotebookEdit", "NotebookRead":
		return map[string]any{"notebook_path": v}
	case "LS":
		return map[string]any{"path": v}
	}
	return map[string]any{"file_path": v, "arg": v}
}
