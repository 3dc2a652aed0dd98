package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/rpc"
	"vibing/internal/session"
)

// TestChatLoadersAgree: `vibing-agent check`/`explain`/`run` (openChat) and
// the editor's RPC explain load a chat through the same loader. For a chat
// with working_dir: sub, both work in <root>/sub and both guard every chat
// in <root>/.vibing/chat/ (an Edit of another chat, and `echo x >` into one
// under a Bash(echo:*) allow, are refused by the guard).
func TestChatLoadersAgree(t *testing.T) {
	t.Parallel()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmp, "root")
	for _, d := range []string{".vibing/chat", "sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	chat := filepath.Join(root, ".vibing/chat/chat.md")
	other := filepath.Join(root, ".vibing/chat/other.md")
	text := "---\nvibing.nvim: true\nworking_dir: sub\npermissions_mode: bypassPermissions\npermissions_allow: [\"Bash(echo:*)\", Edit]\n---\n## User\n"
	for _, p := range []string{chat, other} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// the command line's loader (the test's own current directory is
	// elsewhere: the project is found from the chat's place)
	ce, err := openChat(chat, "", "", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		tool string
		in   map[string]any
	}{
		{"Edit", map[string]any{"file_path": other, "old_string": "a", "new_string": "b"}},
		{"Write", map[string]any{"file_path": "../.vibing/chat/other.md", "content": "x"}},
		{"Bash", map[string]any{"command": "echo x > ../.vibing/chat/other.md"}},
		{"Bash", map[string]any{"command": "echo x > " + other}},
	}
	for _, c := range calls {
		if d := ce.engine.Decide(c.tool, c.in); d.Decision != session.Deny || d.Source != session.SourceGuard {
			t.Errorf("openChat: %s %v = %s/%s (%s), want deny/guard", c.tool, c.in, d.Decision, d.Source, d.Reason)
		}
	}
	cli := ce.engine.Explain()

	// `vibing-agent check` itself
	for _, c := range calls {
		in, _ := json.Marshal(c.in)
		var out, errb bytes.Buffer
		if code := runCheck(context.Background(), []string{"--chat", chat, "--tool", c.tool, "--input", string(in)}, stdio{in: strings.NewReader(""), out: &out, err: &errb}); code != 0 {
			t.Fatalf("check exited %d: %s", code, errb.String())
		}
		var d session.Decision
		if err := json.Unmarshal(out.Bytes(), &d); err != nil {
			t.Fatalf("check printed %q: %v", out.String(), err)
		}
		if d.Decision != session.Deny || d.Source != session.SourceGuard {
			t.Errorf("check: %s %v = %s/%s (%s), want deny/guard", c.tool, c.in, d.Decision, d.Source, d.Reason)
		}
	}

	// the editor's loader: the buffer's lines, the editor's directory
	h := &rpc.Host{}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	linesAny := make([]any, len(lines))
	for i, l := range lines {
		linesAny[i] = l
	}
	reply, err := h.Handle(context.Background(), "explain", []any{map[string]any{"lines": linesAny, "chat": chat, "cwd": root}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := reply.(map[string]any)
	if ok, _ := m["ok"].(bool); !ok {
		t.Fatalf("rpc explain: %v", m)
	}
	b, _ := json.Marshal(m["explanation"])
	var ed session.Explanation
	if err := json.Unmarshal(b, &ed); err != nil {
		t.Fatal(err)
	}

	if cli.Cwd != filepath.Join(root, "sub") || ed.Cwd != cli.Cwd {
		t.Errorf("working directory: command line %q, editor %q; want %q", cli.Cwd, ed.Cwd, filepath.Join(root, "sub"))
	}
	if strings.Join(cli.Guarded, "\n") != strings.Join(ed.Guarded, "\n") {
		t.Errorf("guarded paths differ:\ncommand line: %v\neditor:       %v", cli.Guarded, ed.Guarded)
	}
	found := false
	for _, g := range cli.Guarded {
		found = found || g == filepath.Join(root, ".vibing")
	}
	if !found {
		t.Errorf("guarded %v, want it to hold %s", cli.Guarded, filepath.Join(root, ".vibing"))
	}
}
