package rpc_test

import (
	"context"
	"strings"
	"testing"

	"vibing/internal/config"
	"vibing/internal/rpc"
)

func TestValidateRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule    string
		ok      bool
		want    string // canonical text, or a piece of the error
		example bool
	}{
		{"Bash", true, "Bash", false},
		{"bash(npm:*)", true, "Bash(npm:*)", false},
		{"read(src/**/*.ts)", true, "Read(src/**/*.ts)", false},
		{"WebFetch(github.com)", true, "WebFetch(github.com)", false},
		{"Nope(x)", false, "Nope", true},
		{"Skill(x)", false, "Skill", false},
		{"Bash(npm", false, "Bash(npm", false},
		{"", false, "empty", true},
		{"   ", false, "empty", true},
	}
	h := &rpc.Host{}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			t.Parallel()
			got, err := h.Handle(context.Background(), "validate_rule", []any{map[string]any{"rule": tt.rule}})
			if err != nil {
				t.Fatalf("validate_rule(%q) error = %v", tt.rule, err)
			}
			m := got.(map[string]any)
			if m["ok"] != tt.ok {
				t.Fatalf("validate_rule(%q) = %v, want ok=%v", tt.rule, m, tt.ok)
			}
			if tt.ok && m["rule"] != tt.want {
				t.Errorf("validate_rule(%q) rule = %v, want %q", tt.rule, m["rule"], tt.want)
			}
			if !tt.ok {
				msg, _ := m["error"].(string)
				if !strings.Contains(msg, tt.want) {
					t.Errorf("validate_rule(%q) error = %q, want it to mention %q", tt.rule, msg, tt.want)
				}
				if tt.example && (m["example"] == "" || m["example"] == nil) {
					t.Errorf("validate_rule(%q) example = %v, want a correct example", tt.rule, m["example"])
				}
			}
		})
	}
}

func TestApplyEdit(t *testing.T) {
	t.Parallel()
	cfg := config.DefaultConfig()
	cfg.Presets["mine"] = config.Preset{Mode: "plan"}
	tests := []struct {
		name    string
		edit    rpc.Edit
		changed bool
		has     []string // lines the new frontmatter must hold
		hasNot  []string // lines it must not hold
		note    string   // a piece of one note
		message string   // a piece of the message
		err     string   // a piece of the error (then nothing else is checked)
	}{
		{name: "add allow", edit: rpc.Edit{Op: rpc.OpAdd, List: "allow", Rules: []string{"Bash(git status:*)"}},
			changed: true, has: []string{"  - Bash(git status:*)", "# a comment the edit must keep", "custom: {a: 1, b: [x, y]}"}, message: "Added Bash(git status:*) to permissions_allow"},
		{name: "add canonicalises", edit: rpc.Edit{Op: rpc.OpAdd, List: "deny", Rules: []string{"bash(rm -rf:*)"}},
			changed: true, has: []string{"permissions_deny: [Bash(rm -rf:*)]"}},
		{name: "add present", edit: rpc.Edit{Op: rpc.OpAdd, List: "allow", Rules: []string{"Read"}},
			changed: false, message: "Read is already in permissions_allow"},
		{name: "allow over ask", edit: rpc.Edit{Op: rpc.OpAdd, List: "allow", Rules: []string{"Bash"}},
			changed: true, note: rpc.NoteAllowOverridesAsk},
		{name: "ask under allow", edit: rpc.Edit{Op: rpc.OpAdd, List: "ask", Rules: []string{"bash(npm:*)"}},
			changed: true, note: rpc.NoteAllowOverridesAsk},
		{name: "bare deny shadows", edit: rpc.Edit{Op: rpc.OpAdd, List: "deny", Rules: []string{"Bash"}},
			changed: true, note: "Bash(npm:*) (allow), Bash (ask)"},
		{name: "exact deny shadows", edit: rpc.Edit{Op: rpc.OpAdd, List: "deny", Rules: []string{"WebFetch(github.com)"}},
			changed: true, note: "WebFetch(github.com) (ask)"},
		{name: "several at once", edit: rpc.Edit{Op: rpc.OpAdd, List: "allow", Rules: []string{"Bash(npm run build)", "Glob"}},
			changed: true, has: []string{"  - Bash(npm run build)", "  - Glob"}},
		{name: "one bad rule writes nothing", edit: rpc.Edit{Op: rpc.OpAdd, List: "allow", Rules: []string{"Glob", "Nope(x)"}},
			err: "Nope"},
		{name: "remove", edit: rpc.Edit{Op: rpc.OpRemove, List: "ask", Rules: []string{"bash"}},
			changed: true, hasNot: []string{"  - Bash"}, has: []string{"  - WebFetch(github.com)"}, message: "Removed Bash from permissions_ask"},
		{name: "remove missing", edit: rpc.Edit{Op: rpc.OpRemove, List: "deny", Rules: []string{"Bash"}},
			changed: false, message: "Bash is not in permissions_deny"},
		{name: "mode", edit: rpc.Edit{Op: rpc.OpMode, Value: "acceptEdits"},
			changed: true, has: []string{"permissions_mode: acceptEdits"}, hasNot: []string{"permissions_mode: default"}},
		{name: "bad mode", edit: rpc.Edit{Op: rpc.OpMode, Value: "yolo"}, err: "acceptEdits"},
		{name: "preset", edit: rpc.Edit{Op: rpc.OpPreset, Value: "mine"},
			changed: true, has: []string{"permissions_preset: mine"}},
		{name: "unknown preset", edit: rpc.Edit{Op: rpc.OpPreset, Value: "nope"}, err: "standard"},
		{name: "clear session", edit: rpc.Edit{Op: rpc.OpClearSession},
			changed: true, hasNot: []string{"session_id: abc123"}, has: []string{"created_at: 2026-11-22T10:00:00"}},
		{name: "set session", edit: rpc.Edit{Op: rpc.OpSetSession, Value: "3f2a9c1e-0b7d-4c1e-9a2b-1234567890ab"},
			changed: true, has: []string{"session_id: 3f2a9c1e-0b7d-4c1e-9a2b-1234567890ab", "# a comment the edit must keep"}, hasNot: []string{"session_id: abc123"},
			message: "resumes session 3f2a9c1e"},
		{name: "set same session", edit: rpc.Edit{Op: rpc.OpSetSession, Value: "abc123"}, changed: false, message: "already resumes"},
		{name: "set session empty", edit: rpc.Edit{Op: rpc.OpSetSession}, err: "session id"},
		{name: "set session with a line break", edit: rpc.Edit{Op: rpc.OpSetSession, Value: "a\nb"}, err: "session id"},
		{name: "set session yaml", edit: rpc.Edit{Op: rpc.OpSetSession, Value: "x: [y]"}, err: "session id"},
		{name: "model", edit: rpc.Edit{Op: rpc.OpModel, Value: "opus"}, changed: true, has: []string{"model: opus"}, message: "Set model to opus"},
		{name: "model removed when absent", edit: rpc.Edit{Op: rpc.OpModel, Value: "-"}, changed: false, message: "No model is set"},
		{name: "model with a space", edit: rpc.Edit{Op: rpc.OpModel, Value: "opus --dangerously-skip-permissions"}, err: "not a model name"},
		{name: "model as a flag", edit: rpc.Edit{Op: rpc.OpModel, Value: "--help"}, err: "not a model name"},
		{name: "model with a quote", edit: rpc.Edit{Op: rpc.OpModel, Value: "a'b"}, err: "not a model name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := rpc.ApplyEdit(cfg, readChat(t), tt.edit)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ApplyEdit(%+v) error = %v, want one mentioning %q", tt.edit, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ApplyEdit(%+v) error = %v", tt.edit, err)
			}
			if res.Changed != tt.changed {
				t.Errorf("ApplyEdit(%+v) changed = %v, want %v", tt.edit, res.Changed, tt.changed)
			}
			if first, last := res.Lines[0], res.Lines[len(res.Lines)-1]; first != "---" || last != "---" {
				t.Errorf("ApplyEdit(%+v) lines = %q, want them fenced by ---", tt.edit, res.Lines)
			}
			joined := "\n" + strings.Join(res.Lines, "\n") + "\n"
			for _, l := range tt.has {
				if !strings.Contains(joined, "\n"+l+"\n") {
					t.Errorf("ApplyEdit(%+v) lines = %q, want line %q", tt.edit, res.Lines, l)
				}
			}
			for _, l := range tt.hasNot {
				if strings.Contains(joined, "\n"+l+"\n") {
					t.Errorf("ApplyEdit(%+v) lines = %q, want no line %q", tt.edit, res.Lines, l)
				}
			}
			if tt.note != "" && !strings.Contains(strings.Join(res.Notes, "\n"), tt.note) {
				t.Errorf("ApplyEdit(%+v) notes = %q, want one mentioning %q", tt.edit, res.Notes, tt.note)
			}
			if tt.note == "" && len(res.Notes) > 0 {
				t.Errorf("ApplyEdit(%+v) notes = %q, want none", tt.edit, res.Notes)
			}
			if !strings.Contains(res.Message, tt.message) {
				t.Errorf("ApplyEdit(%+v) message = %q, want it to mention %q", tt.edit, res.Message, tt.message)
			}
		})
	}
}

func TestEditMalformedFrontmatter(t *testing.T) {
	t.Parallel()
	h := &rpc.Host{}
	for _, ls := range [][]any{
		lines("no fence", "a: b"),
		lines("---", "permissions_allow: [unclosed", "---"),
	} {
		got, err := h.Handle(context.Background(), "edit", []any{map[string]any{
			"lines": ls, "op": "add", "list": "allow", "rules": lines("Bash")}})
		if err != nil {
			t.Fatalf("edit(%q) error = %v, want an ok=false reply", ls, err)
		}
		if m := got.(map[string]any); m["ok"] != false || m["lines"] != nil {
			t.Errorf("edit(%q) = %v, want ok=false and no lines", ls, m)
		}
	}
}

func TestCheckCommand(t *testing.T) {
	t.Parallel()
	h := &rpc.Host{}
	for _, tt := range []struct {
		cmd string
		ok  bool
	}{
		{"npm test && echo ok", true},
		{`echo "unbalanced`, false},
		{"for x in a; do echo $x", false},
		{"", true},
	} {
		got, err := h.Handle(context.Background(), "check_command", []any{map[string]any{"command": tt.cmd}})
		if err != nil {
			t.Fatalf("check_command(%q) error = %v", tt.cmd, err)
		}
		m := got.(map[string]any)
		if m["ok"] != tt.ok {
			t.Errorf("check_command(%q) = %v, want ok=%v", tt.cmd, m, tt.ok)
		}
		if !tt.ok && !strings.Contains(m["error"].(string), "does not parse as shell") {
			t.Errorf("check_command(%q) error = %v", tt.cmd, m["error"])
		}
	}
}
