package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// The depth-0 rows: Claude Code's bare Read(.env) in a project's
// .claude/settings.json names the .env at the top of the working folder.
// The loader reads it as Read(**/.env), and a bug made **/NAME miss NAME
// itself (depth 0), so every such deny was off. Each test drives the real
// CLI against the fake API, one per layer, and looks for the secret in
// every request the CLI sent.

const (
	depth0Secret   = "DEPTH0-SECRET-7c1e5a"
	depth0Notes    = "DEPTH0-NOTES-3b9f"
	depth0Settings = `{"permissions":{"deny":["Read(.env)"]}}`
	depth0Rule     = "Read(**/.env)" // how vibing reads Claude Code's bare Read(.env)
	depth0Source   = "project:.claude/settings.json"
)

// depth0Project puts the Claude settings' deny, the secret .env at the top
// of the project and a harmless notes.txt (the control) into dir.
func depth0Project(t *testing.T, dir string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(depth0Settings), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".env"), []byte("API_TOKEN="+depth0Secret+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(depth0Notes+"\n"), 0o644))
}

// noSecret fails the test when any request the CLI sent holds the secret.
func noSecret(t *testing.T, api *fakeapi.Server) {
	t.Helper()
	if api.Received(depth0Secret) {
		t.Errorf("the secret of the top-level .env reached the API; tool results:\n%s", toolResults(api))
	}
}

func readTool(path string) fakeapi.Turn {
	return fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Read", Input: map[string]any{"file_path": path}}}}
}

// toolResultOf is the tool result the CLI sent for the tool call id (its
// text, and whether it is an error); the test fails when there is none.
func toolResultOf(t *testing.T, api *fakeapi.Server, id string) (string, bool) {
	t.Helper()
	for _, r := range api.MainRequests() {
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal([]byte(r.Body), &body) != nil {
			continue
		}
		for _, m := range body.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue // a plain string
			}
			for _, b := range blocks {
				if b.Type == "tool_result" && b.ToolUseID == id {
					return string(b.Content), b.IsError
				}
			}
		}
	}
	t.Fatalf("no tool result for %s; tool results:\n%s", id, toolResults(api))
	return "", false
}

// Chat layer: `vibing-agent run` in bypassPermissions mode (the chat allows
// everything; the sandbox is off, so the engine alone stands in the way).
// `cat .env` and `cat .en?` are each refused by the project's bare
// Read(.env) (read as Read(**/.env)), named with its file, in the
// decisions, the audit and the reason the model gets. A Read of .env is
// refused by the CLI itself (its own settings deny, checked before any
// hook: vibing is not asked, and must not have allowed it). `cat notes.txt`
// runs (its text reaches the API); the secret never does.
func TestDepthZeroEnvChat(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_mode: bypassPermissions\n", "sandbox: \"off\"\n")
	w.api.Close()
	w.api = fakeapi.New(bash("cat .env"), bash("cat .en?"), readTool(filepath.Join(w.dir, ".env")),
		bash("cat notes.txt"), fakeapi.Turn{Text: "done"})
	t.Cleanup(w.api.Close)
	depth0Project(t, w.dir)

	res := w.run(allowAll)
	if res.code != 0 {
		t.Fatalf("run: exit %d, events %v, stderr %s", res.code, res.types(), res.stderr)
	}
	noSecret(t, w.api)
	if !w.api.Received(depth0Notes) {
		t.Errorf("the control cat notes.txt did not reach the API; tool results:\n%s", toolResults(w.api))
	}
	var bashes []run.Output
	for _, d := range res.all("decision") {
		switch {
		case d.Tool == "Bash":
			bashes = append(bashes, d)
		case d.Decision != "deny":
			t.Errorf("a %s call was not refused: %+v", d.Tool, d)
		}
	}
	want := []string{"cat .env", "cat .en?"}
	if len(bashes) != len(want)+1 {
		t.Fatalf("Bash decisions = %+v, want %d denies and the control's allow", bashes, len(want))
	}
	for i, line := range want {
		d := bashes[i]
		if d.Detail != line || d.Decision != "deny" || d.Rule != depth0Rule || d.Source != depth0Source {
			t.Errorf("%s: decision %+v, want deny by %s from %s", line, d, depth0Rule, depth0Source)
			continue
		}
		if !w.api.Received(d.Reason) {
			t.Errorf("%s: the model never got the denial reason %q", line, d.Reason)
		}
	}
	if last := bashes[len(want)]; last.Detail != "cat notes.txt" || last.Decision != "allow" {
		t.Errorf("the control cat notes.txt: decision %+v, want allow", last)
	}
	if content, isErr := toolResultOf(t, w.api, "toolu_fake0003"); !isErr {
		t.Errorf("the Read of .env was not refused: tool result %q", content)
	}
	denies := 0
	rows := auditRows(t, w)
	for _, r := range rows {
		if r.Decision == "deny" && r.Rule == depth0Rule && r.Source == depth0Source {
			denies++
		}
	}
	if denies != len(want) {
		t.Errorf("audit: %d denies by %s from %s, want %d; rows %+v", denies, depth0Rule, depth0Source, len(want), rows)
	}
}

// Hook layer: a plain terminal `claude -p` session with the vibing hook
// installed, under --dangerously-skip-permissions (the CLI itself lets
// every Bash line run): the hook refuses `cat .env` and `head -c 99 .en?`
// by the project's bare Read(.env), its audit rows say so, `cat notes.txt`
// runs (the hook leaves it to the CLI's bypass mode), and the secret never
// reaches the API.
func TestDepthZeroEnvHook(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t)
	w.api.Close()
	w.api = fakeapi.New(bash("cat .env"), bash("head -c 99 .en?"), bash("cat notes.txt"), fakeapi.Turn{Text: "done"})
	t.Cleanup(w.api.Close)
	depth0Project(t, w.dir)

	w.claude("show me the env file", "--dangerously-skip-permissions")
	noSecret(t, w.api)
	if !w.api.Received(depth0Notes) {
		t.Errorf("the control cat notes.txt did not reach the API; tool results:\n%s", toolResults(w.api))
	}
	for _, line := range []string{"cat .env", "head -c 99 .en?"} {
		if !w.api.Received("hook error: vibing: Bash (" + line + ")") {
			t.Errorf("the model never got the hook's refusal of %s; tool results:\n%s", line, toolResults(w.api))
		}
	}
	var got []string
	for _, r := range w.hookRows() {
		if r["decision"] == "deny" && r["rule"] != depth0Rule {
			t.Errorf("hook deny not by %s: %v", depth0Rule, r)
		}
		got = append(got, r["decision"]+" "+r["action"])
	}
	// the control is left to the CLI's own mode (bypass): defer
	if want := "defer tool:Bash:cat notes.txt,deny tool:Bash:head -c 99 .en?,deny tool:Bash:cat .env"; strings.Join(got, ",") != want {
		t.Errorf("hook audit rows (newest first) = %q, want %q", strings.Join(got, ","), want)
	}
}

// Sandbox layer: `vibing-agent claude` with the sandbox on and no hook
// installed, under --dangerously-skip-permissions: nothing but the kernel
// stands between ./read.sh and the top-level .env (the CLI sees the line
// `sh read.sh`, which no rule names). The view hides .env by the project's
// bare Read(.env): the script runs to its end and reads notes.txt, and the
// secret never reaches the API. (The view is derived by the engine's slow
// twin, which has no literal-end test, so this row holds even when only the
// engine's Match has the depth-0 bug; it fails when the view shares it.)
func TestDepthZeroEnvSandbox(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	w := newWorld(t, "", "sandbox: \"on\"\n", bash("sh read.sh"), fakeapi.Turn{Text: "done"})
	depth0Project(t, w.dir)
	w.write(filepath.Join(w.dir, "read.sh"), "cat .env; cat ./.en?; cat \"$PWD/.env\"; cat notes.txt; echo read-done\n")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "claude", "--config", w.config, "--",
		"-p", "go", "--dangerously-skip-permissions", "--output-format", "text")
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "HOME="+w.home, "XDG_STATE_HOME="+filepath.Join(w.home, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(w.home, "config"), "VIBING_CLAUDE_BIN="+w.claude,
		"ANTHROPIC_BASE_URL="+w.api.URL, "ANTHROPIC_API_KEY=test", "IS_SANDBOX=1",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vibing-agent claude: %v\n%s", err, out)
	}
	noSecret(t, w.api)
	result, _ := toolResultOf(t, w.api, "toolu_fake0001")
	t.Logf("sh read.sh: %s", result)
	for _, want := range []string{depth0Notes, "read-done"} {
		if !strings.Contains(result, want) {
			t.Errorf("the result of sh read.sh lacks %q (the script did not run through): %s", want, result)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(w.dir, ".env")); !strings.Contains(string(got), depth0Secret) {
		t.Errorf(".env changed: %q", got)
	}
}
