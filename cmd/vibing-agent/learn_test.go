package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tool the CLI named in its init event (remembered by run) is accepted in
// rules by every later command; before that it is an unknown tool.
func TestLearnedToolsAccepted(t *testing.T) {
	bin := sharedAgent(t)
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	if out, _, code := runAgent(t, bin, t.TempDir(), env, "validate", "FutureTool"); code == exitOK {
		t.Fatalf("an unknown tool validated before the CLI named it: %s", out)
	}
	t.Setenv("XDG_STATE_HOME", state)
	rememberTools([]string{"Bash", "FutureTool"})
	if _, err := os.Stat(filepath.Join(state, "vibing", "cli-tools.json")); err != nil {
		t.Fatalf("rememberTools wrote nothing: %v", err)
	}
	out, _, code := runAgent(t, bin, t.TempDir(), env, "validate", "FutureTool", "AskUserQuestion", "ScheduleWakeup")
	if code != exitOK || !strings.Contains(out, "ok: FutureTool") || !strings.Contains(out, "ok: AskUserQuestion") {
		t.Fatalf("validate after the CLI named the tools: exit %d, %s", code, out)
	}
}
