package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The same rule is named the same way in every audit row, whoever decided:
// a chat's run, the Claude Code hook deciding a Read and the hook deciding
// a prompt's @-mention all record the rule Read(README.md) with source
// deny_list; via says which of them wrote the row.
func TestAuditSourceSameEverywhere(t *testing.T) {
	bin := madeAgent(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	db := filepath.Join(dir, "state", "audit.sqlite")
	cfg := filepath.Join(dir, "options.json")
	writeFile(t, cfg, `{"audit_path":"`+db+`"}`)
	writeFile(t, filepath.Join(dir, "README.md"), "# demo\n")
	chat := filepath.Join(dir, ".vibing", "chat", "chat.md")
	writeFile(t, chat, "---\nvibing.nvim: true\npermissions_deny: [\"Read(README.md)\"]\n---\n## User\n\nhello\n")

	// the run (the demo agent's first call reads README.md)
	cmd := exec.Command(bin, "run", "--chat", chat, "--backend", "demo", "--config", cfg)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"type":"prompt","text":"hi"}`+"\n")
	sc := bufio.NewScanner(stdout)
	for sc.Scan() { // the run's stdin stays open until its result (closing it cancels the turn)
		var o struct{ Type, ID string }
		json.Unmarshal(sc.Bytes(), &o)
		if o.Type == "approval_request" {
			io.WriteString(stdin, `{"type":"approval_response","id":"`+o.ID+`","decision":"deny_once"}`+"\n")
		}
		if o.Type == "result" {
			stdin.Close()
		}
	}
	cmd.Wait()
	// the hook: a Read, then a prompt mentioning the file
	for _, in := range []string{
		`{"session_id":"s","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + filepath.Join(dir, "README.md") + `"}}`,
		`{"session_id":"s","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"look at @README.md"}`,
	} {
		h := exec.Command(bin, "hook", "--chat", chat, "--config", cfg)
		h.Dir, h.Env, h.Stdin = dir, append(os.Environ(), env...), strings.NewReader(in)
		if out, err := h.Output(); err != nil {
			t.Fatalf("hook: %v\n%s", err, out)
		}
	}
	out, errOut, code := runAgent(t, bin, dir, env, "audit", "--config", cfg, "--json", "--limit", "0")
	if code != 0 {
		t.Fatalf("audit: exit %d %s", code, errOut)
	}
	vias := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if r["rule"] != "Read(README.md)" {
			continue
		}
		via, _ := r["via"].(string)
		vias[via]++
		if r["source"] != "deny_list" || r["decision"] != "deny" {
			t.Errorf("row via %s: source %v, decision %v; want deny_list, deny", via, r["source"], r["decision"])
		}
	}
	if vias["run"] == 0 || vias["hook"] != 2 || len(vias) != 2 {
		t.Errorf("rows of Read(README.md) by via = %v, want rows of run and two of hook\n%s", vias, out)
	}
}
