package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// wireLog is one control line that passed between vibing-agent run and the
// real CLI, as the tee in front of the CLI saw it.
type wireLog struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Request   struct {
		Subtype   string `json:"subtype"`
		ToolName  string `json:"tool_name"`
		ToolUseID string `json:"tool_use_id"`
		Input     struct {
			ToolName  string `json:"tool_name"`
			ToolUseID string `json:"tool_use_id"`
		} `json:"input"`
	} `json:"request"`
	Response struct {
		RequestID string `json:"request_id"`
		Response  struct {
			Hook struct {
				Decision string `json:"permissionDecision"`
			} `json:"hookSpecificOutput"`
			Behavior string `json:"behavior"`
		} `json:"response"`
	} `json:"response"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func readWire(t *testing.T, path string) []wireLog {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the wire log: %v", err)
	}
	defer f.Close()
	var out []wireLog
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var l wireLog
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			out = append(out, l)
		}
	}
	return out
}

// tapCLI puts a shell script in front of the real CLI that copies what
// vibing-agent run writes to it (in) and what it answers (out), line by line,
// and its arguments.
func tapCLI(t *testing.T, w *world) (in, out, args string) {
	t.Helper()
	dir := filepath.Join(filepath.Dir(w.dir), "tap")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	in, out, args = filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "args")
	script := filepath.Join(dir, "claude")
	body := "#!/bin/sh\necho \"$@\" >>'" + args + "'\ntee -a '" + in + "' | '" + w.claude + "' \"$@\" | tee -a '" + out + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	w.claude = script
	return in, out, args
}

// A resumed session (--resume) of the real CLI is gated by the PreToolUse
// hook callback that vibing-agent run registers: the CLI sends a
// hook_callback for every tool call, a read it would run by itself
// included, waits for its answer before the tool runs, and obeys it; the
// person's answer to the approval goes back as the hook's allow or deny, so
// nothing depends on the can_use_tool callback that SDK issue 29 (seed 003)
// found skipped on resume. This is the evidence behind resume_ask = "prompt".
func TestRealResumedSessionGatedByHook(t *testing.T) {
	tests := []struct {
		answer run.Answer
		ran    bool
		hook   string
	}{
		{run.AllowOnce, true, "allow"},
		{run.DenyOnce, false, "deny"},
	}
	for _, tt := range tests {
		t.Run(tt.answer.String(), func(t *testing.T) {
			w := newWorld(t, "permissions_ask: [Bash]\n", "resume_ask: prompt\nsandbox: \"off\"\n", fakeapi.Turn{Text: "Hello."})
			notes := filepath.Join(w.dir, "notes.txt")
			w.write(notes, "a note\n")
			id := resumable(t, w)
			w.api.Close()
			w.api = fakeapi.New(fakeapi.Turn{Tools: []fakeapi.ToolCall{{ID: "toolu_read", Name: "Read", Input: map[string]any{"file_path": notes}}}},
				fakeapi.Turn{Tools: []fakeapi.ToolCall{{ID: "toolu_bash", Name: "Bash", Input: map[string]any{"command": "touch gated.txt", "description": "test step"}}}},
				fakeapi.Turn{Text: "Done."})
			in, out, argsLog := tapCLI(t, w)
			w.write(w.chat, "---\nvibing.nvim: true\nsession_id: "+id+"\npermissions_ask: [Bash]\n---\n\n## User\n\nagain\n")
			res := w.run(answer(tt.answer))
			if s := res.all("session"); len(s) != 1 || s[0].Resumed == nil || !*s[0].Resumed {
				t.Fatalf("session = %+v, want a resumed one", s)
			}
			if args, _ := os.ReadFile(argsLog); !strings.Contains(string(args), "--resume") {
				t.Fatalf("the CLI was not started with --resume: %s", args)
			}
			if n := len(res.all("approval_request")); n != 1 {
				t.Errorf("approval requests = %d, want 1 (the Bash call); events %v", n, res.types())
			}
			if w.exists("gated.txt") != tt.ran {
				t.Errorf("gated.txt exists = %v, want %v", w.exists("gated.txt"), tt.ran)
			}
			hooks := map[string]string{} // request id -> tool
			canUse := 0
			for _, l := range readWire(t, out) {
				if l.Type != "control_request" {
					continue
				}
				switch l.Request.Subtype {
				case "hook_callback":
					hooks[l.RequestID] = l.Request.Input.ToolName
				case "can_use_tool":
					canUse++
				}
			}
			answers := map[string]string{} // tool -> the hook's answer
			for _, l := range readWire(t, in) {
				if tool, ok := hooks[l.Response.RequestID]; ok && l.Type == "control_response" {
					answers[tool] = l.Response.Response.Hook.Decision
				}
			}
			if answers["Read"] != "allow" || answers["Bash"] != tt.hook {
				t.Errorf("hook answers by tool = %v, want Read allow and Bash %s (hook requests %v)", answers, tt.hook, hooks)
			}
			t.Logf("hook requests %v, answers %v", hooks, answers)
			if canUse != 0 {
				t.Errorf("the CLI sent %d can_use_tool requests after the hook answered; want none", canUse)
			}
		})
	}
}
