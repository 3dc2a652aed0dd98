package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// hookWorld is a terminal Claude Code session: an isolated HOME where
// `vibing-agent hook install` put the hook, a project, and the fake API.
type hookWorld struct {
	*world
	rules string // the --chat file the hook reads its lists from
}

const hookRules = "permissions_deny: [\"Bash(rm:*)\", \"Read(secret.txt)\"]\npermissions_allow: [\"Bash(touch ok.txt)\"]\n"

func newHookWorld(t *testing.T, turns ...fakeapi.Turn) *hookWorld {
	t.Helper()
	w := &hookWorld{world: newWorld(t, "", "", turns...)}
	w.rules = filepath.Join(filepath.Dir(w.dir), "rules.md")
	w.write(w.rules, "---\nvibing.nvim: true\n"+hookRules+"---\n")
	out, code := w.agent("hook", "install", "--config", w.config, "--chat", w.rules)
	if code != 0 {
		t.Fatalf("hook install: exit %d\n%s", code, out)
	}
	return w
}

func (w *hookWorld) env() []string {
	return append(os.Environ(),
		"HOME="+w.home, "XDG_STATE_HOME="+filepath.Join(w.home, "state"), "XDG_CONFIG_HOME="+filepath.Join(w.home, "config"),
		"ANTHROPIC_BASE_URL="+w.api.URL, "ANTHROPIC_API_KEY=test", "IS_SANDBOX=1",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0")
}

// agent runs vibing-agent in the project with the world's HOME.
func (w *hookWorld) agent(args ...string) (string, int) {
	cmd := exec.Command(agentBin, args...)
	cmd.Dir = w.dir
	cmd.Env = w.env()
	out, _ := cmd.CombinedOutput()
	return string(out), cmd.ProcessState.ExitCode()
}

// claude runs `claude -p PROMPT` in the project and returns its result text.
func (w *hookWorld) claude(prompt string, extra ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.world.claude, append([]string{"-p", prompt, "--output-format", "json"}, extra...)...)
	cmd.Dir = w.dir
	cmd.Env = w.env()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		w.t.Logf("claude: %v; stderr %s", err, stderr.String())
	}
	var res struct {
		Result string `json:"result"`
	}
	_ = json.Unmarshal(out.Bytes(), &res)
	return res.Result
}

// hookRows are the audit rows the hook wrote, through `vibing-agent audit`.
func (w *hookWorld) hookRows() []map[string]string {
	w.t.Helper()
	out, code := w.agent("audit", "--config", w.config, "--json", "--limit", "0")
	if code != 0 {
		w.t.Fatalf("audit: exit %d\n%s", code, out)
	}
	var rows []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			w.t.Fatalf("audit line %q: %v", line, err)
		}
		r := make(map[string]string, len(raw)) // (resumed is a boolean: "true" / "false")
		for k, v := range raw {
			if s, ok := v.(string); ok {
				r[k] = s
			} else {
				r[k] = fmt.Sprint(v)
			}
		}
		if r["via"] == "hook" {
			rows = append(rows, r)
		}
	}
	return rows
}

// A chat-less terminal session: the hook refuses a denied Bash inside a
// compound line (the model reads our reason), lets an allowed one run, and
// audits both with the session id.
func TestHookTerminalSession(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, bash("ls && rm victim.txt"), bash("touch ok.txt"))
	w.write(filepath.Join(w.dir, "victim.txt"), "x")
	w.claude("tidy up")
	if !w.exists("victim.txt") {
		t.Error("the denied rm ran: victim.txt is gone")
	}
	if !w.exists("ok.txt") {
		t.Error("the allowed touch did not run")
	}
	if !w.api.Received("hook error: vibing: Bash (ls && rm victim.txt)") || !w.api.Received("Bash(rm:*)") {
		t.Error("the model never got the hook's reason naming Bash(rm:*)")
	}
	rows := w.hookRows()
	var decisions []string
	for _, r := range rows {
		decisions = append(decisions, r["decision"]+" "+r["tool"])
		if r["session_id"] == "" {
			t.Errorf("hook row without session id: %v", r)
		}
	}
	if strings.Join(decisions, ",") != "allow Bash,deny Bash" {
		t.Errorf("hook audit rows (newest first) = %v, want allow Bash, deny Bash", decisions)
	}
}

// The CLI reads an @-mention by itself; the hook blocks the prompt so the
// secret never reaches the API, and lets other mentions through.
func TestHookBlocksDeniedMention(t *testing.T) {
	t.Parallel()
	const secret = "TOPSECRET-9d41"
	w := newHookWorld(t)
	w.write(filepath.Join(w.dir, "secret.txt"), secret+"\n")
	w.write(filepath.Join(w.dir, "notes.txt"), "NOTES-5e2\n")
	res := w.claude("what is in @secret.txt ?")
	if w.api.Received(secret) {
		t.Fatal("the secret reached the API")
	}
	if !strings.Contains(res, "Read(secret.txt)") {
		t.Errorf("result %q does not name the rule", res)
	}
	w.claude("what is in @notes.txt ?")
	if !w.api.Received("NOTES-5e2") {
		t.Error("an allowed mention was not sent (the control failed)")
	}
	rows := w.hookRows()
	if len(rows) != 2 || rows[0]["decision"] != "allow" || rows[1]["decision"] != "deny" || !strings.Contains(rows[1]["rule"], "Read(secret.txt)") {
		t.Errorf("hook rows = %v, want allow (notes) then deny (secret) by Read(secret.txt)", rows)
	}
}

// --dangerously-skip-permissions does not get past the default deny rules.
func TestHookHoldsUnderBypass(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, bash("git push --force origin main"))
	w.claude("ship it", "--dangerously-skip-permissions")
	if !w.api.Received("refused by the built-in rule") {
		t.Error("the model never got the default rule's refusal")
	}
	if rows := w.hookRows(); len(rows) != 1 || rows[0]["decision"] != "deny" {
		t.Errorf("hook rows = %v, want one deny", rows)
	}
}

// A hook binary that is gone blocks the call ("onFailure": "block").
func TestHookMissingBinaryBlocks(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, bash("touch ok-but-hookless.txt"))
	settings := filepath.Join(w.home, ".claude", "settings.json")
	data, _ := os.ReadFile(settings)
	w.write(settings, strings.ReplaceAll(string(data), agentBin, agentBin+"-gone"))
	w.claude("make a file")
	if w.exists("ok-but-hookless.txt") {
		t.Error("the call ran although the hook binary is missing")
	}
	out, code := w.agent("hook", "status")
	if code == 0 || !strings.Contains(out, "does not exist") {
		t.Errorf("status = exit %d\n%s\nwant a failure naming the stale path", code, out)
	}
}

// Inside `vibing-agent run` the installed hook stands aside for the
// claude the run started: the run's allow holds although the hook's own
// rules would deny, and the call is decided (and audited) once.
func TestHookStandsAsideInRun(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, bash("touch ok-from-run.txt"))
	// the hook's rules deny what the chat allows
	w.write(w.rules, "---\nvibing.nvim: true\npermissions_deny: [\"Bash(touch:*)\"]\n---\n")
	w.write(w.chat, "---\nvibing.nvim: true\npermissions_allow: [\"Bash(touch:*)\"]\n---\n\n## User\n\nhello\n")
	res := w.run(answer(run.DenyOnce))
	if !w.exists("ok-from-run.txt") {
		t.Errorf("the run's allowed call did not run (the hook did not stand aside); events %v", res.types())
	}
	if d := res.all("decision"); len(d) != 1 || d[0].Decision != "allow" {
		t.Errorf("run decisions = %+v, want one allow", d)
	}
	if rows := w.hookRows(); len(rows) != 0 {
		t.Errorf("hook rows = %v, want none (the run decides its own claude's calls)", rows)
	}
}

// A subagent's Bash goes through the hook like any call.
func TestHookDecidesSubagent(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t,
		fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Agent", Input: map[string]any{"description": "clean", "prompt": "remove victim.txt", "subagent_type": "claude", "run_in_background": false}}}},
		bash("rm victim.txt"))
	// the subagent itself is allowed; its Bash meets the deny rule
	w.write(w.rules, "---\nvibing.nvim: true\n"+strings.Replace(hookRules, "permissions_allow: [", "permissions_allow: [Agent, ", 1)+"---\n")
	w.write(filepath.Join(w.dir, "victim.txt"), "x")
	w.claude("delegate it")
	if !w.exists("victim.txt") {
		t.Error("the subagent's denied rm ran")
	}
	found := false
	for _, r := range w.hookRows() {
		if r["tool"] == "Bash" && r["decision"] == "deny" && strings.Contains(r["reason"], "subagent") {
			found = true
		}
	}
	if !found {
		t.Errorf("no hook deny row for the subagent's Bash; rows %v", w.hookRows())
	}
}

// A Read(.env) deny in the project's committed .vibing/policy.yaml (a policy
// layer the hook reads; Claude Code itself knows nothing of it): `cat .env`
// is refused by the hook and the secret never reaches the API; the guard
// refuses writing .claude/settings.local.json (which could switch every hook
// off), also under --dangerously-skip-permissions.
func TestHookReadDenyAndGuard(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t)
	// the Write names the project's real path, known once the world exists
	w.api.Close()
	w.api = fakeapi.New(bash("cat .env"), fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Write", Input: map[string]any{
		"file_path": filepath.Join(w.dir, ".claude", "settings.local.json"), "content": `{"disableAllHooks": true}`}}}})
	t.Cleanup(w.api.Close)
	w.write(filepath.Join(w.dir, ".env"), "API_TOKEN=TOPSECRET-9041\n")
	if err := os.MkdirAll(filepath.Join(w.dir, ".vibing"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write(filepath.Join(w.dir, ".vibing", "policy.yaml"), "deny: [\"Read(.env)\"]\n")
	w.claude("show me the env file, then turn off the hooks", "--dangerously-skip-permissions")
	if w.api.Received("TOPSECRET-9041") {
		t.Error("the secret reached the API")
	}
	if !w.api.Received("hook error: vibing: Bash (cat .env)") {
		t.Errorf("the model never got the hook's refusal of cat .env; tool results:\n%s", toolResults(w.api))
	}
	if w.exists(filepath.Join(".claude", "settings.local.json")) {
		t.Error(".claude/settings.local.json was written: the guard did not hold")
	}
	if !w.api.Received("holds vibing's permissions") {
		t.Error("the model never got the guard's reason")
	}
}
