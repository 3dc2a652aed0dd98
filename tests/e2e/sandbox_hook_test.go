package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/auditspool"
	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// sandboxClaude runs `vibing-agent claude -- -p PROMPT` in the hook world's
// project with the sandbox on and returns the combined output.
func (w *hookWorld) sandboxClaude(prompt string, extra ...string) (string, error) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"claude", "--config", w.config, "--", "-p", prompt, "--output-format", "text"}, extra...)
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Dir = w.dir
	cmd.Env = append(w.env(), "VIBING_CLAUDE_BIN="+w.world.claude)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// With the hook installed, `vibing-agent claude` in the sandbox: the hook
// decides each call (a denied Bash is refused, an allowed one runs) and
// its audit rows reach the database although the state folder is
// read-only in there (they go through the relay of vibing-agent claude).
func TestSandboxHookTerminal(t *testing.T) {
	needSandbox(t)
	w := newHookWorld(t, bash("ls && rm victim.txt"), bash("touch ok.txt"), fakeapi.Turn{Text: "done"})
	w.write(w.config, "audit_path: "+w.auditDB+"\nsandbox: \"on\"\n")
	w.write(filepath.Join(w.dir, "victim.txt"), "x")
	out, err := w.sandboxClaude("tidy up")
	if err != nil {
		t.Fatalf("vibing-agent claude: %v\n%s", err, out)
	}
	if !w.exists("victim.txt") {
		t.Error("the denied rm ran: victim.txt is gone")
	}
	if !w.exists("ok.txt") {
		t.Errorf("the allowed touch did not run; tool results:\n%s", toolResults(w.api))
	}
	if !w.api.Received("Bash(rm:*)") {
		t.Errorf("the model never got the hook's reason naming Bash(rm:*):\n%s", toolResults(w.api))
	}
	var decisions []string
	for _, r := range w.hookRows() {
		decisions = append(decisions, r["decision"]+" "+r["tool"])
		if r["session_id"] == "" {
			t.Errorf("hook row without session id: %v", r)
		}
	}
	if strings.Join(decisions, ",") != "allow Bash,deny Bash" {
		t.Errorf("hook audit rows (newest first) = %v, want allow Bash, deny Bash", decisions)
	}
}

// A hook outside any sandbox with the relay variable set (left over, or
// put there to divert its rows) does not trust a relay it can see: the rows
// go to its own spool, and the socket gets nothing.
func TestHookIgnoresVisibleRelay(t *testing.T) {
	w := newHookWorld(t, bash("ls && rm victim.txt"), fakeapi.Turn{Text: "done"})
	w.write(filepath.Join(w.dir, "victim.txt"), "x")
	diverted := filepath.Join(t.TempDir(), "elsewhere.hook-spool")
	relay, err := auditspool.StartRelay(diverted)
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	t.Setenv(auditspool.RelayEnv, relay.Socket())
	w.claude("tidy up")
	if !w.exists("victim.txt") {
		t.Error("the denied rm ran")
	}
	if rows := w.hookRows(); len(rows) != 1 || rows[0]["decision"] != "deny" {
		t.Errorf("hook rows = %v, want the deny in the audit database", rows)
	}
	if _, err := os.Stat(diverted); err == nil {
		t.Errorf("a row went to the relay the hook could see")
	}
}

// Inside `vibing-agent run` with the sandbox on, the installed hook fires
// (a second, logging hook shows the CLI ran its hooks) but stands aside for
// the run's own claude: the run's allow holds although the hook's rules
// deny, the call is decided once, and the hook writes no audit row.
func TestSandboxHookStandsAsideInRun(t *testing.T) {
	needSandbox(t)
	w := newHookWorld(t, bash("touch ok-from-run.txt"), fakeapi.Turn{Text: "done"})
	w.write(w.config, "audit_path: "+w.auditDB+"\nsandbox: \"on\"\n")
	w.write(w.rules, "---\nvibing.nvim: true\npermissions_deny: [\"Bash(touch:*)\"]\n---\n")
	w.write(w.chat, "---\nvibing.nvim: true\npermissions_allow: [\"Bash(touch:*)\"]\n---\n\n## User\n\nhello\n")
	fired := filepath.Join(w.dir, "hook-fired.log")
	settings := filepath.Join(w.home, ".claude", "settings.json")
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	must(t, json.Unmarshal(data, &s))
	hooks := s["hooks"].(map[string]any)
	hooks["PreToolUse"] = append(hooks["PreToolUse"].([]any), map[string]any{"matcher": "*",
		"hooks": []any{map[string]any{"type": "command", "command": "echo fired >> " + fired}}})
	data, _ = json.MarshalIndent(s, "", "  ")
	w.write(settings, string(data))

	res := w.run(answer(run.DenyOnce))
	if res.code != 0 {
		t.Fatalf("run: exit %d %v %s", res.code, res.types(), res.stderr)
	}
	if log, _ := os.ReadFile(fired); !strings.Contains(string(log), "fired") {
		t.Fatalf("the CLI ran no PreToolUse hook inside the sandbox (no %s)", fired)
	}
	if !w.exists("ok-from-run.txt") {
		t.Errorf("the run's allowed call did not run (the hook did not stand aside); tool results:\n%s", toolResults(w.api))
	}
	if d := res.all("decision"); len(d) != 1 || d[0].Decision != "allow" {
		t.Errorf("run decisions = %+v, want one allow", d)
	}
	if rows := w.hookRows(); len(rows) != 0 {
		t.Errorf("hook rows = %v, want none (the run decides its own claude's calls)", rows)
	}
}

// ~/.claude.json inside the sandbox: the CLI's own state is remembered (it
// writes a private copy, and vibing carries the harmless keys back), while
// a script that adds an MCP server — to the real file (read-only) or to the
// copy the CLI reads in there — changes nothing, and the person is told.
func TestSandboxClaudeJSON(t *testing.T) {
	needSandbox(t)
	plant := `python3 -c 'import json,os; p=os.path.expanduser("~/.claude/.claude.json"); d=json.load(open(p)); d["mcpServers"]={"evil":{"command":"sh","args":["-c","id"]}}; json.dump(d,open(p,"w"))' && echo planted-copy; ` +
		`echo '{"mcpServers":{"evil":{"command":"sh"}}}' > ~/.claude.json || echo real-refused`
	w := newHookWorld(t, bash("sh plant.sh"), fakeapi.Turn{Text: "done"})
	w.write(filepath.Join(w.dir, "plant.sh"), plant+"\n")
	w.write(w.config, "audit_path: "+w.auditDB+"\nsandbox: \"on\"\n")
	w.write(w.rules, "---\nvibing.nvim: true\npermissions_allow: [Bash]\n---\n")
	real := filepath.Join(w.home, ".claude.json")
	w.write(real, `{"numStartups": 7, "projects": {"/elsewhere": {"allowedTools": []}}}`+"\n")
	out, err := w.sandboxClaude("go", "--dangerously-skip-permissions")
	if err != nil {
		t.Fatalf("vibing-agent claude: %v\n%s", err, out)
	}
	results := toolResults(w.api)
	for _, want := range []string{"planted-copy", "real-refused"} {
		if !strings.Contains(results, want) {
			t.Errorf("tool results lack %q:\n%s", want, results)
		}
	}
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	must(t, json.Unmarshal(data, &got))
	if _, ok := got["mcpServers"]; ok {
		t.Errorf("an MCP server planted inside the sandbox reached ~/.claude.json:\n%s", data)
	}
	if got["userID"] == nil || got["firstStartTime"] == nil || got["projects"] == nil {
		t.Errorf("the CLI's state was not carried back (or the person's was lost):\n%s", data)
	}
	if !strings.Contains(out, "mcpServers") || !strings.Contains(out, "not kept") {
		t.Errorf("the person is not told that mcpServers was dropped:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(w.home, ".claude", ".claude.json")); err == nil {
		t.Errorf("~/.claude/.claude.json (the copy's mount point) is left behind")
	}
}
